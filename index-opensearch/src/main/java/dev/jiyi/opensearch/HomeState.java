package dev.jiyi.opensearch;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.index.ChangeLogFollower.Position;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Properties;

/**
 * What the home keeps about its documents in the cluster ({@code opensearch/state.properties}): the
 * home's ID there (random, made once), the build the cluster's documents belong to (random, made by
 * each rebuild, also kept in the cluster's meta document of the home), and the change-log position
 * the last commit reached. The mark is jiyi's and lives in the home: a cluster restored from an old
 * snapshot, or one that lost the index, is noticed (its build differs or is gone) and rebuilt.
 *
 * <p>It also keeps the purge a deletion still owes (D1): the cluster keeps a deleted document's
 * terms on disk until every copy's retention lease has passed the deletion (its soft deletes, for
 * replica recovery), so the purge waits for that, and a process that exits first leaves it to the
 * next one.
 *
 * @param home  the home's ID in the cluster
 * @param build the build the cluster's documents belong to; empty before the first build
 * @param purge the purge owed: for each shard, the highest sequence number of its deletions
 *              ({@code shard:seq,...}); empty when none is
 * @param path  the folder the state was written in: a state read in another folder was copied
 *              or moved there with its home, and names the other home's documents
 */
record HomeState(String home, String build, Position position, String purge, String path) {

    static final String FILE = "state.properties";

    private static final SecureRandom RANDOM = new SecureRandom();

    static String randomId() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * A new build's ID: random, and after an {@code @} the token stream its documents are analyzed
     * with ({@link ChineseTokens#version()}), so that a release of another analysis rebuilds them.
     */
    static String newBuild() {
        return randomId() + "@" + ChineseTokens.version();
    }

    /** The token stream of the build's documents; empty for a build from before builds named it. */
    String analysis() {
        int at = build.indexOf('@');
        return at < 0 ? "" : build.substring(at + 1);
    }

    /**
     * The state in the home's folder when another process of this home has rebuilt it since this
     * state was read (the same folder, another build), else empty.
     */
    Optional<HomeState> rebuiltSince(Path folder) throws IOException {
        return read(folder).filter(onDisk -> !onDisk.build().equals(build) && onDisk.path().equals(path));
    }

    /** Whether the folder holds a state at all: the home has been built in a cluster. */
    static boolean exists(Path folder) {
        return Files.isRegularFile(folder.resolve(FILE));
    }

    /** The state in {@code folder}, if any. */
    static Optional<HomeState> read(Path folder) throws IOException {
        Path file = folder.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        String home = p.getProperty("home", "");
        if (!home.matches("[0-9a-f]{16}")) {
            return Optional.empty();
        }
        long seq;
        try {
            seq = Long.parseLong(p.getProperty("seq", "0"));
        } catch (NumberFormatException e) {
            seq = 0;
        }
        return Optional.of(new HomeState(home, p.getProperty("build", ""), new Position(seq, p.getProperty("mark", "")),
                purge(p.getProperty("purge", "")), p.getProperty("path", "")));
    }

    /** An owed purge as written; one that cannot be read is owed at once on shard 0 (purging early is harmless). */
    private static String purge(String written) {
        return written.matches("(\\d+:-?\\d+(,\\d+:-?\\d+)*)?") ? written.replace(":-1", ":0") : "0:0";
    }

    /** Writes the state whole (a synced copy renamed over the old one). */
    void write(Path folder) throws IOException {
        Files.createDirectories(folder);
        Properties p = new Properties();
        p.setProperty("home", home);
        p.setProperty("build", build);
        p.setProperty("seq", Long.toString(position.seq()));
        p.setProperty("mark", position.mark());
        p.setProperty("purge", purge);
        p.setProperty("path", folder.toAbsolutePath().normalize().toString());
        // A temporary file of its own (two processes of one home may write at once), synced, then renamed.
        Path temp = folder.resolve(FILE + ".tmp-" + randomId());
        java.io.StringWriter text = new java.io.StringWriter();
        p.store(text, "jiyi's documents in the OpenSearch cluster: do not edit (jiyi reindex --opensearch rebuilds them)");
        try (var channel = java.nio.channels.FileChannel.open(temp, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
            channel.force(true);
        }
        try {
            Files.move(temp, folder.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, folder.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    HomeState at(Position reached) {
        return new HomeState(home, build, reached, purge, path);
    }

    HomeState rebuilt(String newBuild, Position head) {
        return new HomeState(home, newBuild, head, purge, path);
    }

    HomeState owing(String newPurge) {
        return new HomeState(home, build, position, newPurge, path);
    }
}
