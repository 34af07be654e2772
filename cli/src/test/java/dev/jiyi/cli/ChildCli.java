package dev.jiyi.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jiyi.engine.Output;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;
import tools.jackson.databind.JsonNode;

/**
 * A child JVM running the real CLI: stdin for this test to write, stdout read line by line on its
 * own thread (acks collected as they arrive), stderr to a file so it never blocks.
 */
final class ChildCli implements AutoCloseable {

    /** How long a child may take for any one step before the test fails. */
    static final Duration WAIT = Duration.ofSeconds(60);

    final String name;
    final Process process;
    final BufferedWriter stdin;
    final Path errFile;
    final List<JsonNode> acks = new CopyOnWriteArrayList<>();
    final List<String> other = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> stdoutDone = new CompletableFuture<>();

    private ChildCli(String name, Process process, Path errFile) {
        this.name = name;
        this.process = process;
        this.errFile = errFile;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(this::readStdout, "stdout-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    static ChildCli start(CliRunner cli, Path logDir, String name, String... args) throws IOException {
        Path err = logDir.resolve(name + ".err");
        ProcessBuilder pb = cli.process(args);
        pb.environment().put("JIYI_DEBUG", "1");
        pb.redirectError(err.toFile());
        return new ChildCli(name, pb.start(), err);
    }

    private void readStdout() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                JsonNode node = null;
                try {
                    node = Output.mapper().readTree(line);
                } catch (RuntimeException e) {
                    // a line cut short by a kill is not an acknowledgement
                }
                if (node != null && node.isObject() && node.has("sequence") && node.has("line")) {
                    acks.add(node);
                } else {
                    other.add(line);
                }
            }
        } catch (IOException e) {
            other.add("<stdout read failed: " + e + ">");
        } finally {
            stdoutDone.complete(null);
        }
    }

    void write(List<String> lines) throws IOException {
        for (String l : lines) {
            stdin.write(l);
            stdin.write('\n');
        }
        stdin.flush();
    }

    void writeAndClose(List<String> lines) {
        try {
            write(lines);
            stdin.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    void awaitAcks(int n) throws InterruptedException {
        awaitUntil(count -> count >= n, "at least " + n + " acks");
    }

    private void awaitUntil(IntPredicate done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.test(acks.size())) {
            if (stdoutDone.isDone() && !done.test(acks.size())) {
                throw new AssertionError(name + " ended before " + what + "\n" + describe());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " timed out waiting for " + what + "\n" + describe());
            }
            Thread.sleep(1);
        }
    }

    int waitForExit() throws InterruptedException, ExecutionException, TimeoutException {
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(name + " did not exit in time\n" + describe());
        }
        awaitStdoutClosed();
        return process.exitValue();
    }

    void awaitStdoutClosed() throws InterruptedException, ExecutionException, TimeoutException {
        stdoutDone.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The summary document of a finished batch, or null. */
    JsonNode summary() {
        for (String l : other) {
            try {
                JsonNode n = Output.mapper().readTree(l);
                if (n != null && n.has("summary")) {
                    return n.get("summary");
                }
            } catch (RuntimeException e) {
                // not JSON
            }
        }
        return null;
    }

    /** The last non-ack stdout line as JSON (a one-document command's output). */
    JsonNode lastJson() {
        assertThat(other).as(describe()).isNotEmpty();
        return Output.mapper().readTree(other.getLast());
    }

    String stderr() {
        try {
            return Files.exists(errFile) ? Files.readString(errFile, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "<cannot read stderr: " + e + ">";
        }
    }

    String describe() {
        String exit = process.isAlive() ? "running" : "exit " + process.exitValue();
        return "child " + name + " (" + exit + ", " + acks.size() + " acks)\n--- other stdout\n"
                + String.join("\n", other) + "\n--- stderr\n" + stderr();
    }

    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
