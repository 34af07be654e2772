package dev.jiyi.opensearch;

import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * L2 on a cluster that loses a node: a catch-up that runs while a node is stopped and started again
 * (its requests failing over, or failing and retried from the last committed position) converges to
 * the documents, and the answers, of a home built from scratch.
 */
class RestartTest {

    private static final String FOLLOWED = "restart-" + HomeState.randomId();
    private static final String REBUILT = "rebuilt-" + HomeState.randomId();
    private static final Scope ZH = new Scope("小明", "default");
    private static final Scope EN = new Scope("sam", "work");
    private static final String[] WORDS = {"咖啡", "花园", "龙井", "徒步", "杭州", "猫", "会议", "密码", "coffee", "garden",
            "tea", "hiking", "meeting", "cat", "deadline", "report", "火锅", "weekend"};

    @AfterAll
    static void dropIndexes() {
        TestCluster.get().deleteIndex(FOLLOWED);
        TestCluster.get().deleteIndex(REBUILT);
    }

    @Test
    @DisplayName("L2 a node stopped and restarted during catch-up: the index converges to a rebuild's answers")
    void catchUpSurvivesANodeRestart(@TempDir Path dir, @TempDir Path copy) throws Exception {
        Random random = new Random(7);
        Map<String, List<Long>> followed = new TreeMap<>();
        try (Homes home = new Homes(dir, FOLLOWED, 3)) {
            List<Memory> kept = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                kept.add(home.remember(i % 2 == 0 ? ZH : EN, text(random, i)));
            }
            home.index().catchUp(home.authority);
            for (int i = 200; i < 2_400; i++) {
                kept.add(home.remember(i % 2 == 0 ? ZH : EN, text(random, i)));
            }
            for (int i = 0; i < 30; i++) {
                Memory gone = kept.get(random.nextInt(kept.size()));
                if (home.authority.memory(gone.scope(), gone.id()).isPresent()) {
                    home.authority.deleteEvent(gone.scope(), gone.eventId());
                }
            }
            // The catch-up applies a page at a time, within its budget; a node goes away after the
            // first round and comes back while the next rounds run.
            OpenSearchIndex.Status status = home.index().catchUp(home.authority);
            assertThat(status.behind()).as("precondition: the first round leaves work").isPositive();
            TestCluster.get().stop(1);
            int failures = 0;
            try {
                status = home.index().catchUp(home.authority);
            } catch (JiyiException e) {
                failures++;
            }
            CompletableFuture<Void> restart = CompletableFuture.runAsync(() -> TestCluster.get().startAgain(1));
            for (int round = 0; round < 500 && (status.behind() > 0 || !restart.isDone()); round++) {
                try {
                    status = home.index().catchUp(home.authority);
                } catch (JiyiException e) {
                    failures++; // a request that no node could answer: the next round resumes from the last commit
                    Thread.sleep(200);
                }
            }
            restart.join();
            status = home.index().catchUp(home.authority);
            assertThat(status.behind()).isZero();
            System.out.println("catch-up rounds that failed while the node restarted: " + failures);
            Files.copy(dir.resolve("jiyi.db"), copy.resolve("jiyi.db"));
            for (String q : queries()) {
                followed.put("zh " + q, rows(home.memories(ZH, q, 1_000)));
                followed.put("en " + q, rows(home.memories(EN, q, 1_000)));
                followed.put("zh events " + q, rows(home.events(ZH, q, 1_000)));
            }
            Map<String, List<Double>> scores = scores(home);
            try (Homes rebuilt = new Homes(copy, REBUILT, 3)) {
                rebuilt.backend.rebuild(rebuilt.authority, n -> { });
                assertThat(rebuilt.index().home()).isNotEqualTo(home.index().home());
                for (String q : queries()) {
                    assertThat(followed.get("zh " + q)).as(q).containsExactlyInAnyOrderElementsOf(rows(rebuilt.memories(ZH, q, 1_000)));
                    assertThat(followed.get("en " + q)).as(q).containsExactlyInAnyOrderElementsOf(rows(rebuilt.memories(EN, q, 1_000)));
                    assertThat(followed.get("zh events " + q)).as(q)
                            .containsExactlyInAnyOrderElementsOf(rows(rebuilt.events(ZH, q, 1_000)));
                }
                Map<String, List<Double>> fresh = scores(rebuilt);
                for (Map.Entry<String, List<Double>> e : scores.entrySet()) {
                    List<Double> other = fresh.get(e.getKey());
                    for (int i = 0; i < e.getValue().size(); i++) {
                        // Deleted documents not yet merged away still count in the followed index's statistics.
                        assertThat(e.getValue().get(i)).as(e.getKey()).isCloseTo(other.get(i), within(0.02 * other.get(i)));
                    }
                }
            }
        }
    }

    private static Map<String, List<Double>> scores(Homes home) {
        Map<String, List<Double>> out = new TreeMap<>();
        for (String q : queries()) {
            List<Double> s = new ArrayList<>();
            for (Candidate c : home.memories(ZH, q, 10)) {
                s.add(c.score());
            }
            out.put(q, s);
        }
        return out;
    }

    private static List<String> queries() {
        return List.of("咖啡 花园", "龙井 tea", "徒步 hiking weekend", "会议 report deadline", "猫", "密码", "火锅 杭州", "coffee");
    }

    private static List<Long> rows(List<Candidate> candidates) {
        List<Long> out = new ArrayList<>();
        for (Candidate c : candidates) {
            out.add(c.rowId());
        }
        return out;
    }

    private static String text(Random random, int i) {
        StringBuilder b = new StringBuilder();
        for (int w = 0, n = 2 + random.nextInt(5); w < n; w++) {
            b.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        return b.append("记录").append(i).toString();
    }
}
