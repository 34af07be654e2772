package dev.jiyi.opensearch;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.Settings;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A home for the cluster tests: an authority in a folder, and its OpenSearch backend on a named index. */
final class Homes implements AutoCloseable {

    static final Instant SAID = Instant.parse("2024-05-01T02:00:00Z");
    static final Instant NOW = Instant.parse("2024-06-01T00:00:00Z");

    final Path dir;
    final Authority authority;
    final OpenSearchBackend backend;
    private int counter;

    Homes(Path dir, String index) {
        this(dir, index, 1);
    }

    Homes(Path dir, String index, int shards) {
        this.dir = dir;
        this.authority = Authority.open(dir.resolve("jiyi.db"), List.of());
        // A short catch-up budget, so that a large change log takes several rounds (as after an outage).
        Map<String, String> m = Map.of("index.opensearch.url", TestCluster.get().url(), "index.opensearch.index", index,
                "index.opensearch.shards", Integer.toString(shards), "index.opensearch.catch_up_ms", "300");
        Settings settings = m::get;
        this.backend = new OpenSearchBackend(dir, settings, Map.of());
    }

    Event say(Scope scope, String text) {
        return authority.submitEvent(new EventSubmission("ev-" + dir.getFileName() + "-" + counter++, scope, Role.USER, text, "test",
                Category.CONVERSATION, "s1", SAID)).event();
    }

    Memory remember(Scope scope, String text) {
        Event e = say(scope, text);
        return authority.addMemory(scope, MemoryDraft.builder(e.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text(text).quote(text).build());
    }

    OpenSearchIndex index() {
        return backend.index();
    }

    List<Candidate> memories(Scope scope, String query, int limit) {
        return authority.read(s -> s.memoryCandidates(index(), query, Eligibility.current(scope, NOW), limit));
    }

    List<Candidate> events(Scope scope, String query, int limit) {
        return authority.read(s -> s.eventCandidates(index(), query, scope, limit));
    }

    @Override
    public void close() {
        backend.close();
        authority.close();
    }
}
