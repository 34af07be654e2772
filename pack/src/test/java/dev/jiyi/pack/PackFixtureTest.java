package dev.jiyi.pack;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** Base of the pack tests that need a fresh {@link PackFixture} per test: opened before, closed after. */
abstract class PackFixtureTest {

    static final String S1 = "s1";
    static final int BIG = PackRequest.MAX_BUDGET;

    @TempDir
    Path dir;

    PackFixture f;

    @BeforeEach
    void open() {
        f = new PackFixture(dir);
    }

    @AfterEach
    void close() {
        f.close();
    }
}
