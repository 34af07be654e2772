package dev.jiyi.cli;

import dev.jiyi.engine.Output;

import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the real {@code jiyi} command line against one home: in this JVM ({@link #run}) for speed,
 * or as a separate OS process ({@link #process}) for concurrency and crash tests.
 */
public final class CliRunner {

    /** Tables whose row counts prove that a rejected command changed nothing. */
    public static final List<String> TABLES = List.of("personas", "events", "memories", "relations", "checkpoints",
            "embeddings", "extractions", "capture_cursors", "change_log", "events_fts", "memories_fts");

    private final Path home;
    private final Map<String, String> env;

    public CliRunner(Path home) {
        this.home = home;
        this.env = new HashMap<>(System.getenv());
        // No setting of the developer's (a home, an extraction endpoint) may leak into a test.
        this.env.keySet().removeIf(k -> k.startsWith("JIYI_"));
    }

    /**
     * Sets an environment variable for the commands this runner starts (in this JVM and in
     * separate processes), e.g. {@code JIYI_EXTRACT_URL} pointing at a local MockWebServer.
     */
    public CliRunner env(String key, String value) {
        env.put(key, value);
        return this;
    }

    public Path home() {
        return home;
    }

    public Path database() {
        return home.resolve("jiyi.db");
    }

    /** The outcome of one command: exit code, stdout, stderr. */
    public record Result(int code, String out, String err) {

        /** stdout parsed as one JSON document. */
        public JsonNode json() {
            return Output.mapper().readTree(out);
        }

        /** stdout parsed as JSON lines. */
        public List<JsonNode> jsonLines() {
            List<JsonNode> nodes = new ArrayList<>();
            out.lines().filter(l -> !l.isBlank()).forEach(l -> nodes.add(Output.mapper().readTree(l)));
            return nodes;
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs {@code jiyi --home HOME args...} in this JVM with empty stdin. */
    public Result run(String... args) {
        return runWithStdin("", args);
    }

    /** Runs {@code jiyi --home HOME args...} in this JVM with the given stdin. */
    public Result runWithStdin(String stdin, String... args) {
        List<String> full = new ArrayList<>(List.of("--home", home.toString()));
        full.addAll(List.of(args));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.execute(full.toArray(String[]::new),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                env);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * A separate JVM running {@code jiyi --home HOME args...} from this test's class path, so that it
     * is a real second process with its own SQLite connection and locks.
     */
    public ProcessBuilder process(String... args) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "--home", home.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(env);
        return pb;
    }

    /** Row counts of every table, read through a separate plain connection. */
    public Map<String, Long> rowCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (!Files.exists(database())) {
            return counts;
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database());
             Statement s = c.createStatement()) {
            for (String table : TABLES) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    rs.next();
                    counts.put(table, rs.getLong(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count rows", e);
        }
        return counts;
    }

    /** Runs one SQL query through a separate plain connection and returns the first column of each row. */
    public List<String> query(String sql) {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database());
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("query failed", e);
        }
        return rows;
    }
}
