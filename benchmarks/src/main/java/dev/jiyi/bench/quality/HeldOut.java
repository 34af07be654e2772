package dev.jiyi.bench.quality;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./jiyi bench heldout}: a scenario measured the way a held-out harness measures jiyi, through
 * the public command line of any build's application jar, old or new. Each scenario is exported
 * ({@link Export}) and loaded into a fresh home with {@code event submit --batch} and {@code memory
 * add --batch} (and, for semantic or deep mode, {@code reindex --vectors} in each scope the
 * questions ask in); its questions (without their gold) and, for every such scope, the off-topic
 * probes of {@link Calibration#OFF_TOPIC} are asked with one {@code recall --batch}; the answers are
 * scored by the source event IDs of the top five results. Nothing of the build under test is called
 * in this process, so a commit's jar from a worktree measures that commit.
 *
 * <pre>
 * ./jiyi bench heldout [--jar cli/target/jiyi.jar] [--datasets events-zh,sessions-en,home-20]
 *     [--mode fast|semantic|deep] [--index fts5|lucene] [--data DIR] [--work DIR]
 * </pre>
 */
public final class HeldOut {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** How long one command of the build under test may take. */
    private static final long COMMAND_MINUTES = 30;

    /** One dataset's figures: the share of gold in the top 5, questions with any gold there, probes answered. */
    record Score(String dataset, int questions, double recall5, double anyGold5, int probes, int probesAnswered,
                 double seconds) {
    }

    private HeldOut() {
    }

    /** Runs the harness; returns its exit code (2 for bad arguments, 1 when a command of the build failed). */
    public static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        Path jar = Path.of("cli", "target", "jiyi.jar");
        Path data = Path.of("..", "shared", "datasets");
        Path work = null;
        List<String> names = List.of(PersonalEvents.NAME, MultiSession.NAME, SmallHome.NAME);
        String mode = "fast";
        String index = "fts5";
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--jar" -> jar = Path.of(args[++i]);
                    case "--data" -> data = Path.of(args[++i]);
                    case "--work" -> work = Path.of(args[++i]);
                    case "--datasets" -> names = List.of(args[++i].split(","));
                    case "--mode" -> mode = args[++i];
                    case "--index" -> index = args[++i];
                    default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; see docs/benchmarks.md");
                }
            }
            for (String name : names) {
                if (!RecallQuality.DATASETS.contains(name)) {
                    throw new IllegalArgumentException("--datasets: each must be one of "
                            + String.join(", ", RecallQuality.DATASETS));
                }
            }
            if (!Set.of("fast", "semantic", "deep").contains(mode)) {
                throw new IllegalArgumentException("--mode: must be fast, semantic or deep");
            }
            if (!Set.of("fts5", "lucene").contains(index)) {
                throw new IllegalArgumentException("--index: must be fts5 or lucene");
            }
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("--jar: must be a built application jar (mvn package builds cli/target/jiyi.jar)");
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            err.println("bench heldout: " + (e instanceof ArrayIndexOutOfBoundsException ? "an option lacks its value"
                    : e.getMessage()));
            return 2;
        }
        Path root = work != null ? Files.createDirectories(work) : Files.createTempDirectory("jiyi-heldout-");
        List<Score> scores = new ArrayList<>();
        try {
            for (String name : names) {
                scores.add(measure(RecallQuality.scenario(data, name), jar.toAbsolutePath(), root.resolve(name), mode,
                        index));
            }
        } catch (CommandFailed e) {
            err.println("bench heldout: " + e.getMessage());
            return 1;
        } finally {
            if (work == null) {
                delete(root);
            }
        }
        out.printf(Locale.ROOT, "# jiyi bench heldout%n%njar %s, mode %s, index %s%n%n", jar, mode, index);
        out.print(table(scores));
        return 0;
    }

    /** One scenario through the build's command line, in a fresh home under {@code dir}. */
    static Score measure(Scenario s, Path jar, Path dir, String mode, String index) throws IOException {
        Export.write(s, dir);
        Path files = dir.resolve(s.name());
        Path home = dir.resolve("home");
        long start = System.nanoTime();
        cli(jar, home, dir, "--json", "event", "submit", "--batch", files.resolve("events.jsonl").toString());
        if (!s.memories().isEmpty()) {
            cli(jar, home, dir, "--json", "memory", "add", "--batch", files.resolve("memories.jsonl").toString());
        }
        Map<String, Set<String>> gold = new LinkedHashMap<>();
        Set<String> scopes = new LinkedHashSet<>();
        List<String> requests = new ArrayList<>();
        String asOf = null;
        for (String line : Files.readAllLines(files.resolve("questions.jsonl"), StandardCharsets.UTF_8)) {
            ObjectNode q = (ObjectNode) JSON.readTree(line);
            Set<String> ids = new LinkedHashSet<>();
            q.get("gold").forEach(g -> ids.add(g.asString()));
            gold.put(q.get("tag").asString(), ids);
            q.remove("gold");
            q.put("mode", mode).put("index", index).put("limit", 10);
            requests.add(JSON.writeValueAsString(q));
            scopes.add(q.get("persona").asString() + "\u0000" + q.get("project").asString());
            asOf = q.get("as_of").asString();
        }
        int probes = 0;
        for (String scope : scopes) {
            String[] p = scope.split("\u0000");
            for (String probe : Calibration.OFF_TOPIC) {
                ObjectNode q = JSON.createObjectNode().put("persona", p[0]).put("project", p[1]).put("query", probe)
                        .put("tag", "off-topic " + probes++).put("as_of", asOf).put("mode", mode).put("index", index)
                        .put("limit", 10);
                requests.add(JSON.writeValueAsString(q));
            }
        }
        if (!mode.equals("fast") && !s.memories().isEmpty()) {
            // Memories added by hand have no vectors until reindex, scope by scope, as a user would run it.
            for (String scope : scopes) {
                String[] p = scope.split("\u0000");
                cli(jar, home, dir, "--json", "reindex", "--vectors", "--persona", p[0], "--project", p[1]);
            }
        }
        Path batch = Files.write(dir.resolve("requests.jsonl"), requests, StandardCharsets.UTF_8);
        String answers = cli(jar, home, dir, "--json", "recall", "--batch", batch.toString());
        double recall = 0;
        int any = 0;
        int answered = 0;
        for (String line : answers.lines().filter(l -> !l.isBlank()).toList()) {
            JsonNode a = JSON.readTree(line);
            String tag = a.path("tag").asString();
            List<String> top = new ArrayList<>();
            a.path("results").forEach(r -> {
                String id = r.path("source_event_id").asString();
                if (!top.contains(id) && top.size() < 5) {
                    top.add(id);
                }
            });
            if (tag.startsWith("off-topic ")) {
                answered += top.isEmpty() ? 0 : 1;
                continue;
            }
            Set<String> g = gold.get(tag);
            if (g == null || g.isEmpty()) {
                continue;
            }
            long found = top.stream().filter(g::contains).count();
            recall += (double) found / g.size();
            any += found > 0 ? 1 : 0;
        }
        int asked = (int) gold.values().stream().filter(g -> !g.isEmpty()).count();
        return new Score(s.name(), asked, asked == 0 ? 0 : recall / asked, asked == 0 ? 0 : (double) any / asked,
                probes, answered, (System.nanoTime() - start) / 1e9);
    }

    static String table(List<Score> scores) {
        StringBuilder sb = new StringBuilder(
                "| dataset | questions | R@5 | any gold in top 5 | off-topic probes answered | seconds |\n"
                        + "|---|---:|---:|---:|---:|---:|\n");
        for (Score s : scores) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %d / %d | %.1f |%n", s.dataset(),
                    s.questions(), s.recall5(), s.anyGold5(), s.probesAnswered(), s.probes(), s.seconds()));
        }
        return sb.toString();
    }

    /** A command of the build under test that did not end with exit 0. */
    static final class CommandFailed extends RuntimeException {
        CommandFailed(String message) {
            super(message);
        }
    }

    /** Runs {@code jiyi ARGS --home HOME --quiet} from the jar with this JVM's java; returns its stdout. */
    private static String cli(Path jar, Path home, Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--home", home.toString(), "--quiet"));
        Path stdout = dir.resolve("stdout.txt");
        Path stderr = dir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("JIYI_"));
        Process p = pb.start();
        try {
            if (!p.waitFor(COMMAND_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new CommandFailed(args[1] + " " + args[2] + ": no answer in " + COMMAND_MINUTES + " minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new CommandFailed(args[1] + " " + args[2] + ": interrupted");
        }
        if (p.exitValue() != 0) {
            String last = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream().reduce((a, b) -> b).orElse("");
            throw new CommandFailed(args[1] + " " + args[2] + " exited " + p.exitValue() + ": " + last);
        }
        return Files.readString(stdout, StandardCharsets.UTF_8);
    }

    private static void delete(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
