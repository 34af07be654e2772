package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import dev.jiyi.fts5.Fts5Index;

import java.util.List;

/**
 * The engine that commands (and later the MCP server) share: the authority opened on the home's
 * database with the FTS5 index always attached.
 */
public final class Jiyi implements AutoCloseable {

    private final Home home;
    private final Authority authority;

    private Jiyi(Home home, Authority authority) {
        this.home = home;
        this.authority = authority;
    }

    public static Jiyi open(Home home) {
        return new Jiyi(home, Authority.open(home.database(), List.of(new Fts5Index())));
    }

    public Home home() {
        return home;
    }

    public Authority authority() {
        return authority;
    }

    @Override
    public void close() {
        authority.close();
    }
}
