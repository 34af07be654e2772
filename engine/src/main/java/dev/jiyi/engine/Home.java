package dev.jiyi.engine;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where jiyi keeps its data: {@code --home}, else {@code $JIYI_HOME}, else {@code $XDG_DATA_HOME/jiyi},
 * else {@code ~/.local/share/jiyi}. The database is {@code jiyi.db} inside it.
 */
public record Home(Path dir) {

    public static final String DATABASE_FILE = "jiyi.db";

    public static Home resolve(Path flag, Map<String, String> env) {
        if (flag != null) {
            return new Home(flag.toAbsolutePath());
        }
        String jiyiHome = env.get("JIYI_HOME");
        if (jiyiHome != null && !jiyiHome.isBlank()) {
            return new Home(Path.of(jiyiHome).toAbsolutePath());
        }
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return new Home(Path.of(xdg, "jiyi").toAbsolutePath());
        }
        return new Home(Path.of(System.getProperty("user.home"), ".local", "share", "jiyi"));
    }

    public Path database() {
        return dir.resolve(DATABASE_FILE);
    }
}
