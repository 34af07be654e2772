package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A second process for the Lucene index tests, started by {@link #start}: it opens the authority
 * ({@code <home>/jiyi.db}) and the Lucene index ({@code <home>/lucene}) and then, by mode:
 * <ul>
 * <li>{@code catchup}: prints {@code started}, then applies the change log one short budget at a
 *     time (a commit each) until it is current, and prints {@code done}</li>
 * <li>{@code rebuild}: prints {@code started}, then rebuilds the index again and again until killed</li>
 * <li>{@code hold}: catches up (taking the write lock), prints {@code ready <applied>}, then reads
 *     commands from stdin: {@code catchup} (prints {@code caught <applied>}), {@code search <query>}
 *     (a search of the diary's current memories, which applies the log as a recall's would; prints
 *     {@code found <rows>}); end of input closes and exits</li>
 * </ul>
 * Its standard error goes to the parent's, so a failure in it is visible in the test output.
 */
public final class LuceneChild {

    private LuceneChild() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path home = Path.of(args[1]);
        try (Authority authority = Authority.open(home.resolve("jiyi.db"), List.of())) {
            LuceneOptions options = LuceneOptions.defaults();
            if (mode.equals("catchup")) {
                options = options.withCatchUpBudget(Duration.ofMillis(1));
            }
            try (LuceneIndex index = LuceneIndex.open(home.resolve("lucene"), options)) {
                switch (mode) {
                    case "catchup" -> {
                        System.out.println("started");
                        while (index.catchUp(authority).behind() > 0) {
                            System.out.println("applied " + index.status().applied());
                        }
                        System.out.println("done");
                    }
                    case "rebuild" -> {
                        System.out.println("started");
                        for (int i = 0; ; i++) {
                            index.rebuild(authority);
                            System.out.println("rebuilt " + i);
                        }
                    }
                    case "hold" -> hold(authority, index);
                    default -> throw new IllegalArgumentException("mode: must be catchup, rebuild or hold");
                }
            }
        }
    }

    private static void hold(Authority authority, LuceneIndex index) throws Exception {
        LuceneStatus s = index.catchUp(authority);
        System.out.println("ready " + s.applied() + " " + s.readOnly());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("catchup")) {
                System.out.println("caught " + index.catchUp(authority).applied());
            } else if (line.startsWith("search ")) {
                System.out.println("found " + Archive.rows(Archive.memories(authority, index, line.substring(7),
                        dev.jiyi.authority.index.Eligibility.current(Archive.DIARY, Archive.NOW), 10)));
            }
        }
    }

    /** Starts this class in a new JVM with the test's classpath. */
    static Process start(String mode, Path home) throws java.io.IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-Dfile.encoding=UTF-8");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LuceneChild.class.getName());
        command.add(mode);
        command.add(home.toString());
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Reads the child's output up to a line starting with {@code prefix}; fails if it ends first. */
    static String await(BufferedReader out, String prefix) throws java.io.IOException {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new java.io.EOFException("the child process ended before printing " + prefix);
    }
}
