package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code jiyi demo}: runs real commands on a temporary home with a small bilingual conversation and
 * prints each command with its output, and the same questions answered by both indexes side by side.
 */
@Command(name = "demo", description = "Run jiyi on a temporary home with a bundled bilingual sample.")
final class DemoCommand implements Callable<Integer> {

    /**
     * The environment the demo's commands see: the caller's, minus every {@code JIYI_} setting, so
     * that the demo always shows the same thing (the local embedding model, no extraction endpoint)
     * whatever is configured for real use.
     */
    private static final java.util.Map<String, String> DEMO_ENV = System.getenv().entrySet().stream()
            .filter(e -> !e.getKey().startsWith("JIYI_"))
            .collect(java.util.stream.Collectors.toUnmodifiableMap(java.util.Map.Entry::getKey, java.util.Map.Entry::getValue));

    private static final Pattern MEMORY_ID = Pattern.compile("mem_[0-9A-Z]{26}");

    @Spec
    CommandSpec spec;

    @Option(names = "--keep", description = "Keep the temporary home instead of deleting it.")
    boolean keep;

    private Path home;
    private PrintWriter out;
    private int failures;

    @Override
    public Integer call() throws IOException {
        out = spec.commandLine().getOut();
        home = Files.createTempDirectory("jiyi-demo-");
        out.println("jiyi demo: a temporary home at " + home);
        try {
            script();
        } finally {
            if (!keep) {
                deleteTree(home);
            } else {
                out.println("(kept " + home + ")");
            }
        }
        out.println();
        out.println(failures == 0 ? "demo finished: every step succeeded" : "demo finished with " + failures + " failed step(s)");
        out.flush();
        return failures == 0 ? ExitCode.OK : ExitCode.INTERNAL;
    }

    private void script() {
        section("1. A persona (versioned; edits append, nothing is overwritten)");
        run("persona", "edit", "--text", "你是一位温和、简洁的助手，记得用户说过的话。 A warm, concise assistant that remembers.");
        run("persona", "history");

        section("2. Original events: Chinese, English and mixed, with their real times");
        run("event", "submit", "--id", "demo-1", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-03-02T09:15:00+08:00",
                "--text", "我住在上海，在一家做机器学习的公司上班。");
        run("event", "submit", "--id", "demo-2", "--role", "assistant", "--session", "s1",
                "--occurred-at", "2024-03-02T09:15:20+08:00",
                "--text", "真为你高兴！上海的春天很美。");
        run("event", "submit", "--id", "demo-3", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-03-02T09:16:00+08:00",
                "--text", "I prefer green tea over coffee, and I'm reading 《三体》 this month.");
        run("event", "submit", "--id", "demo-4", "--role", "user", "--session", "s2",
                "--occurred-at", "2025-01-10T20:00:00+08:00",
                "--text", "告诉你个消息：我上周搬到北京了，新公司在海淀。");
        run("event", "submit", "--id", "demo-5", "--role", "system", "--session", "s2", "--category", "reference",
                "--occurred-at", "2025-01-10T20:00:05+08:00",
                "--text", "Reference: 北京市海淀区 is Beijing's university district.");
        out.println("(re-submitting demo-1 unchanged is idempotent:)");
        run("event", "submit", "--id", "demo-1", "--role", "user", "--session", "s1",
                "--text", "我住在上海，在一家做机器学习的公司上班。");

        section("3. Memories derived by hand: each quote must be an exact substring of its event");
        String shanghai = memoryId(run("memory", "add", "--event", "demo-1", "--kind", "fact", "--basis", "user_statement",
                "--text", "用户住在上海", "--quote", "我住在上海", "--subject", "user", "--fact-key", "home_city"));
        String job = memoryId(run("memory", "add", "--event", "demo-1", "--kind", "fact", "--basis", "user_statement",
                "--text", "用户在一家机器学习公司工作", "--quote", "在一家做机器学习的公司上班"));
        String tea = memoryId(run("memory", "add", "--event", "demo-3", "--kind", "preference", "--basis", "user_statement",
                "--text", "Prefers green tea over coffee", "--quote", "I prefer green tea over coffee",
                "--cue", "book:三体"));
        run("memory", "add", "--event", "demo-2", "--kind", "emotion", "--basis", "assistant_expression",
                "--text", "助手为用户感到高兴", "--quote", "真为你高兴", "--emotion-label", "joy",
                "--valence", "0.8", "--arousal", "0.5");
        out.println("(a later statement closes the earlier home_city interval at its own start:)");
        run("memory", "add", "--event", "demo-4", "--kind", "fact", "--basis", "user_statement",
                "--text", "用户搬到了北京", "--quote", "我上周搬到北京了", "--subject", "user", "--fact-key", "home_city");
        out.println("(validation: a quote that is not in the event is rejected, naming the rule but not the text:)");
        runExpecting(ExitCode.INVALID, "memory", "add", "--event", "demo-3", "--kind", "fact", "--basis", "user_statement",
                "--text", "Likes espresso", "--quote", "I love espresso");
        out.println("(reference material is a source, never lived experience:)");
        runExpecting(ExitCode.INVALID, "memory", "add", "--event", "demo-5", "--kind", "fact", "--basis", "inference",
                "--text", "海淀是大学区", "--quote", "Beijing's university district");

        section("4. Relations and reading a memory with its evidence");
        if (shanghai != null && tea != null) {
            run("relate", shanghai, tea);
        }
        if (shanghai != null) {
            run("memory", "read", shanghai);
        }
        if (job == null) {
            failures++;
        }

        section("5. A host-reported task checkpoint");
        run("checkpoint", "save", "--session", "s2", "--goal", "帮用户整理搬家后的待办 / moving checklist",
                "--done", "记录新城市", "--pending", "更新通勤路线", "--next", "询问新公司的地址", "--covered-seq", "4");
        run("checkpoint", "show", "--session", "s2");

        section("6. Recall: Chinese, English and mixed, with every signal of the score");
        run("recall", "北京", "--explain");
        run("recall", "what tea do I like?");
        run("recall", "我住在哪里 where do I live");
        out.println("(the expired home_city fact appears only when history is asked for:)");
        run("recall", "我住在哪里 where do I live", "--include-history");
        out.println("(a raw event without memories is a labeled fallback; FTS syntax is plain text:)");
        run("recall", "university \"district\" AND NEAR(");
        out.println("(common words alone are not evidence:)");
        run("recall", "的 我 了 the a");

        section("7. The same questions on both indexes: FTS5 (always there) and Lucene (derived, built on first use)");
        out.println("(each query runs twice, with --index fts5 and with --index lucene; their top 3:)");
        compare("北京");
        compare("green tea");
        compare("我住在哪里 where do I live");
        out.println("(recall.index=lucene in config.properties, or JIYI_RECALL_INDEX=lucene, makes Lucene the default)");

        section("8. Recall by meaning: a local Chinese/English embedding model, no network");
        run("event", "submit", "--id", "demo-7", "--role", "user", "--session", "s2",
                "--occurred-at", "2025-01-11T08:30:00+08:00", "--text", "我养了一只橘猫，叫咪咪，每天早上叫我起床。");
        run("memory", "add", "--event", "demo-7", "--kind", "fact", "--basis", "user_statement",
                "--text", "用户养了一只叫咪咪的橘猫", "--quote", "我养了一只橘猫，叫咪咪");
        out.println("(memories derived by hand have no vector until reindex --vectors embeds them:)");
        run("reindex", "--vectors");
        out.println("(宠物 'pet' shares no word with the memory: fast recall finds nothing, semantic recall finds it:)");
        run("recall", "宠物");
        run("recall", "宠物", "--mode", "semantic", "--explain", "--limit", "3");
        run("recall", "我有宠物吗", "--mode", "deep", "--limit", "3");

        section("9. A context pack for the next model call: whole components, in order, within a budget");
        out.println("(recalled by the checkpoint and the latest user turn; counted in gpt-4o's tokens:)");
        run("resume", "--session", "s2", "--budget", "1500", "--model", "gpt-4o");
        out.println("(a smaller budget: a component that does not fit is left out whole and named; later ones may fit:)");
        run("resume", "--session", "s2", "--budget", "400", "--model", "gpt-4o", "--query", "茶 tea");

        section("10. Correcting a mistake, and forgetting on request");
        out.println("(an extraction misread the book; correcting it keeps the audit trail:)");
        String misread = memoryId(run("memory", "add", "--event", "demo-3", "--kind", "episode", "--basis", "user_statement",
                "--text", "Is reading 《红楼梦》 this month", "--quote", "I'm reading 《三体》 this month"));
        if (misread == null) {
            failures++;
            return;
        }
        run("memory", "correct", misread, "--text", "Is reading 《三体》 (The Three-Body Problem) this month",
                "--quote", "《三体》");
        run("memory", "read", misread);
        out.println("(the mistaken text never comes back, not even with history:)");
        run("recall", "红楼梦", "--include-history");
        out.println("(a correction invalidates the scope's checkpoints: their prose may repeat the mistake:)");
        runExpecting(ExitCode.NOT_FOUND, "checkpoint", "show", "--session", "s2");
        out.println("(something the user asks to be forgotten:)");
        run("event", "submit", "--id", "demo-6", "--role", "user", "--session", "s2",
                "--occurred-at", "2025-01-10T20:01:00+08:00", "--text", "顺便一提，我的门禁密码是 4711，别记住这个。");
        run("recall", "门禁密码");
        run("delete", "--event", "demo-6");
        run("recall", "门禁密码", "--include-history");
        out.println("(the Lucene index applies the deletion before it answers, and keeps no term of it:)");
        run("recall", "门禁密码", "--include-history", "--index", "lucene");

        section("11. Health: the Lucene index is derived, rebuilt from the database at any time");
        run("reindex", "--lucene");
        run("doctor");
    }

    /**
     * Runs one query on both indexes and prints their top results in two labelled blocks, then
     * whether they agree. Anything an index says on stderr (the Lucene index's first build) is shown.
     */
    private void compare(String query) {
        out.println("$ jiyi recall " + quote(new String[] {query}) + " --limit 3 --index fts5|lucene");
        List<String> fts5 = top(query, "fts5");
        List<String> lucene = top(query, "lucene");
        if (fts5 == null || lucene == null) {
            return;
        }
        block("fts5", fts5);
        block("lucene", lucene);
        if (fts5.equals(lucene)) {
            out.println("  -> the same results in the same order");
        } else if (!fts5.isEmpty() && !lucene.isEmpty() && fts5.get(0).equals(lucene.get(0))) {
            out.println("  -> the same best result; BM25 differs in small ways between the engines");
        } else {
            out.println("  -> the indexes disagree on the best result");
        }
        out.flush();
    }

    /** The top results of {@code --json recall QUERY --index INDEX --limit 3} as lines, or null on failure. */
    private List<String> top(String query, String index) {
        Ran r = execute("--json", "recall", query, "--index", index, "--limit", "3");
        r.err().lines().forEach(l -> out.println("  " + notice(l)));
        if (r.code() != ExitCode.OK) {
            failures++;
            out.println("  !! --index " + index + ": exit code " + r.code() + ", expected 0");
            return null;
        }
        List<String> lines = new ArrayList<>();
        for (JsonNode item : Output.mapper().readTree(r.out()).get("results")) {
            String label = item.get("type").asString().equals("memory") ? item.get("kind").asString()
                    : "raw_event";
            lines.add("[" + label + "] " + item.get("text").asString().replaceAll("\\s+", " ").strip());
        }
        return lines;
    }

    /** A JSON notice or warning line of stderr as text. */
    private static String notice(String line) {
        if (!line.startsWith("{")) {
            return line;
        }
        JsonNode m = Output.mapper().readTree(line);
        return m.has("notice") ? "jiyi: " + m.get("notice").asString()
                : m.has("warning") ? "warning: " + m.get("warning").asString() : line;
    }

    private void block(String index, List<String> lines) {
        if (lines.isEmpty()) {
            out.println(String.format("  %-7s no evidence found for this query", index));
        }
        for (int i = 0; i < lines.size(); i++) {
            out.println(String.format("  %-7s %d. %s", i == 0 ? index : "", i + 1, lines.get(i)));
        }
    }

    private void section(String title) {
        out.println();
        out.println("== " + title);
    }

    private String run(String... args) {
        return runExpecting(ExitCode.OK, args);
    }

    private String runExpecting(int expected, String... args) {
        out.println("$ jiyi " + quote(args));
        Ran r = execute(args);
        int code = r.code();
        String text = r.out();
        text.lines().forEach(l -> out.println("  " + l));
        r.err().lines().filter(l -> !l.startsWith("Usage:")).forEach(l -> out.println("  " + l));
        if (code != expected) {
            failures++;
            out.println("  !! exit code " + code + ", expected " + expected);
        } else if (code != ExitCode.OK) {
            out.println("  (exit code " + code + ", as expected)");
        }
        out.flush();
        return text;
    }

    /** One command's exit code, stdout and stderr. */
    private record Ran(int code, String out, String err) {
    }

    /** Runs {@code jiyi --home HOME args...} in this JVM with the demo's environment. */
    private Ran execute(String... args) {
        List<String> full = new ArrayList<>(List.of("--home", home.toString()));
        full.addAll(List.of(args));
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int code = Main.execute(full.toArray(String[]::new), new ByteArrayInputStream(new byte[0]),
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8),
                DEMO_ENV);
        return new Ran(code, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
    }

    private static String memoryId(String output) {
        Matcher m = MEMORY_ID.matcher(output);
        return m.find() ? m.group() : null;
    }

    private static String quote(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (String a : args) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(a.matches("[A-Za-z0-9_./:@+=-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return sb.toString();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
