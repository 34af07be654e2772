package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class SchemaCliTest {

    @TempDir
    Path home;

    @Test
    @DisplayName("O2 a database with a newer user_version is refused (exit 4) and left byte-for-byte untouched")
    void newerSchemaRefused() throws Exception {
        CliRunner cli = new CliRunner(home);
        assertThat(cli.run("event", "submit", "--id", "e1", "--role", "user", "--text", "旧数据 old data").code()).isZero();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + cli.database());
             Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = " + (dev.jiyi.authority.Database.SCHEMA_VERSION + 1));
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        byte[] before = Files.readAllBytes(cli.database());
        CliRunner.Result r = cli.run("doctor");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.err()).contains("schema version " + (dev.jiyi.authority.Database.SCHEMA_VERSION + 1), "newer");
        assertThat(Arrays.equals(Files.readAllBytes(cli.database()), before)).isTrue();
    }

    @Test
    @DisplayName("O2 a file that is not a database is reported, not overwritten")
    void corruptFileNotOverwritten() throws Exception {
        Files.createDirectories(home);
        Path db = home.resolve("jiyi.db");
        byte[] garbage = "this is not a sqlite database, 这不是数据库".repeat(200).getBytes();
        Files.write(db, garbage);
        CliRunner.Result r = new CliRunner(home).run("event", "submit", "--id", "e1", "--role", "user", "--text", "x");
        assertThat(r.code()).isNotZero();
        assertThat(Files.readAllBytes(db)).isEqualTo(garbage);
    }
}
