package dev.jiyi.pack;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Checkpoint;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Persona;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.ranking.CurrentEmotion;
import dev.jiyi.ranking.Presentation;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;
import dev.jiyi.ranking.Status;

import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code session_resume}: the budgeted context for the next model call (P1-P5).
 *
 * <p>The context is one JSON object. Its first key, {@code about}, is the framing: what each part is
 * and how far to trust it. Then the components, in order (P2): the persona, the session's
 * checkpoint (K1, as the host reported it), up to 20 current agreements and growth records, up to
 * 20 recalled memories, the current emotion (F4), and up to 5 recent conversation turns in order,
 * labeled as context and not as current facts. Each component goes in whole or not at all (P3): the
 * whole document with it is counted and it stays only if the count is within the budget, so a
 * component that does not fit is named in {@link Pack#omitted()} while later, smaller ones may still
 * go in. If persona and framing alone do not fit, the context is empty and the status is
 * {@code insufficient_budget} (P4). The count is of the final text itself (P5), never a sum of parts.
 *
 * <p>Recalled memories are recalled by the request's query. Without one they are recalled by what
 * the host is doing: the checkpoint's goal, pending steps and next action, and the latest user turn
 * among the recent ones; with neither there is nothing to recall by and the component is empty (R6:
 * no unrelated recent memories stand in). Memories in agreements and growth are not repeated among
 * the recalled ones, whether or not that component fit: each component holds the same at any budget.
 */
public final class ContextPack {

    public static final int MAX_AGREEMENTS = 20;
    public static final int MAX_RECALLED = 20;
    public static final int MAX_RECENT_EVENTS = 5;
    /**
     * Characters taken from the checkpoint and from the latest user turn when recalling without a
     * query: enough for a question, and a bound on what a pasted document costs every pack.
     */
    static final int MAX_BASIS_PART = 1_000;

    static final String FRAMING = "Memory context from jiyi, a long-term memory of past conversations. "
            + "persona: who you are, set by the user. checkpoint: the task state the host last reported; not verified. "
            + "agreements_and_growth and recalled_memories: remembered from past conversations, with their times; "
            + "a status other than current means no longer true. current_emotion: your recently expressed mood, fading. "
            + "recent_events: the latest conversation turns in order; context, not current facts. "
            + "Sources and full text: memory_read.";
    static final String RECENT_NOTE = "Latest conversation turns, oldest first. Context, not current facts.";
    static final String CHECKPOINT_NOTE = "Reported by the host; not a proof that the work happened.";

    private static final Set<Kind> AGREEMENT_KINDS = EnumSet.of(Kind.AGREEMENT, Kind.GROWTH);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Authority authority;
    private final Recall recall;
    private final CurrentEmotion emotion;
    private final Clock clock;

    /** Packs from this authority, recalling through {@code recall} (the index the caller chose). */
    public ContextPack(Authority authority, Recall recall, Clock clock) {
        this.authority = authority;
        this.recall = recall;
        this.emotion = new CurrentEmotion(authority, recall.config());
        this.clock = clock;
    }

    public Pack pack(PackRequest request) {
        TokenCounter counter = TokenCounter.forModel(request.model());
        Instant now = Times.truncate(clock.instant());
        Scope scope = request.scope();
        Fitter fitter = new Fitter(counter, request.budget());

        Persona persona = authority.persona(scope.personaId(), null);
        Map<String, Object> personaPart = new LinkedHashMap<>();
        personaPart.put("version", persona.version());
        personaPart.put("text", persona.content());
        if (!fitter.tryAdd(Component.PERSONA, personaPart, 1)) {
            List<String> omitted = new ArrayList<>();
            for (Component c : Component.values()) {
                omitted.add(c.key());
            }
            return new Pack(Pack.INSUFFICIENT_BUDGET, "", 0, request.budget(), counter.name(), Map.of(), omitted,
                    List.of(), "nothing", List.of());
        }

        Optional<Checkpoint> checkpoint = authority.latestCheckpoint(scope, request.sessionId());
        List<Event> recent = new ArrayList<>(authority.recentEvents(scope, request.sessionId(),
                EnumSet.of(Category.CONVERSATION), now, MAX_RECENT_EVENTS));
        Collections.reverse(recent); // oldest first
        Eligibility current = new Eligibility(scope, now, false);
        List<RecallRow> agreements = authority.read(s -> s.recentMemories(current, AGREEMENT_KINDS, MAX_AGREEMENTS));

        String recalledBy = "query";
        String query = request.query();
        if (query == null) {
            Basis basis = recallBasis(checkpoint, recent);
            query = basis.query();
            recalledBy = basis.name();
        }
        List<String> warnings = new ArrayList<>();
        List<RecalledItem> recalled = List.of();
        if (query != null) {
            // Enough to fill the component after leaving out what agreements_and_growth already shows.
            RecallResult result = recall.recall(new RecallRequest(scope, query, request.mode(),
                    MAX_RECALLED + agreements.size(), null, false));
            warnings.addAll(result.warnings());
            recalled = result.items();
        }

        List<String> empty = new ArrayList<>();
        if (checkpoint.isPresent()) {
            fitter.tryAdd(Component.CHECKPOINT, checkpoint(checkpoint.get()), 1);
        } else {
            empty.add(Component.CHECKPOINT.key());
        }
        addList(fitter, empty, Component.AGREEMENTS_AND_GROWTH, agreements.stream().map(ContextPack::agreement).toList());
        // What agreements_and_growth holds is never repeated, whether or not it fit: each component
        // holds the same at any budget, and only whether it is in depends on the budget.
        Set<String> shown = new HashSet<>();
        agreements.forEach(a -> shown.add(a.memory().id()));
        addList(fitter, empty, Component.RECALLED_MEMORIES, recalled.stream()
                .filter(i -> i.memoryId() == null || !shown.contains(i.memoryId()))
                .limit(MAX_RECALLED).map(ContextPack::recalled).toList());
        Optional<CurrentEmotion.State> mood = emotion.at(scope, now);
        if (mood.isPresent()) {
            fitter.tryAdd(Component.CURRENT_EMOTION, emotion(mood.get()), 1);
        } else {
            empty.add(Component.CURRENT_EMOTION.key());
        }
        if (recent.isEmpty()) {
            empty.add(Component.RECENT_EVENTS.key());
        } else {
            Map<String, Object> part = new LinkedHashMap<>();
            part.put("note", RECENT_NOTE);
            boolean sessions = request.sessionId() == null; // turns of several sessions say which
            part.put("turns", recent.stream().map(e -> turn(e, recall.config().rawTextCap(), sessions)).toList());
            fitter.tryAdd(Component.RECENT_EVENTS, part, recent.size());
        }
        return new Pack(Pack.OK, fitter.text, fitter.tokens(), request.budget(), counter.name(), fitter.included,
                fitter.omitted, empty, query == null ? "nothing" : recalledBy, warnings);
    }

    /** What to recall by without a query, and its name in the metadata. */
    private record Basis(String name, String query) {
    }

    private static Basis recallBasis(Optional<Checkpoint> checkpoint, List<Event> recentOldestFirst) {
        StringBuilder q = new StringBuilder();
        List<String> parts = new ArrayList<>();
        if (checkpoint.isPresent()) {
            Checkpoint c = checkpoint.get();
            StringBuilder task = new StringBuilder(c.goal());
            c.pending().forEach(p -> task.append('\n').append(p));
            if (c.nextAction() != null) {
                task.append('\n').append(c.nextAction());
            }
            q.append(Limits.prefix(task.toString(), MAX_BASIS_PART));
            parts.add("checkpoint");
        }
        for (int i = recentOldestFirst.size() - 1; i >= 0; i--) {
            Event e = recentOldestFirst.get(i);
            if (e.role() == Role.USER) {
                // A long turn (a pasted document) usually ends with what is asked.
                q.append(q.isEmpty() ? "" : "\n").append(Limits.suffix(e.text(), MAX_BASIS_PART));
                parts.add("latest_user_turn");
                break;
            }
        }
        return q.isEmpty() ? new Basis("nothing", null) : new Basis(String.join("+", parts), q.toString());
    }

    private static void addList(Fitter fitter, List<String> empty, Component c, List<Map<String, Object>> items) {
        if (items.isEmpty()) {
            empty.add(c.key());
        } else {
            fitter.tryAdd(c, items, items.size());
        }
    }

    private static Map<String, Object> checkpoint(Checkpoint c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("session", c.sessionId());
        m.put("goal", c.goal());
        m.put("done", c.done());
        m.put("pending", c.pending());
        m.put("constraints", c.constraints());
        if (c.nextAction() != null) {
            m.put("next", c.nextAction());
        }
        m.put("covered_seq", c.coveredSequence());
        m.put("reported_at", time(c.createdAt()));
        m.put("note", CHECKPOINT_NOTE);
        return m;
    }

    private static Map<String, Object> agreement(RecallRow row) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", row.memory().id());
        m.put("kind", row.memory().kind().code());
        m.put("text", row.memory().text());
        m.put("since", time(row.memory().validity().validAt()));
        return m;
    }

    private static Map<String, Object> recalled(RecalledItem item) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (item.type() == RecalledItem.Type.RAW_EVENT) {
            m.put("raw_event", item.sourceEventId());
        } else {
            m.put("id", item.memoryId());
            m.put("kind", item.kind().code());
        }
        m.put("text", item.text());
        if (item.presentation() == Presentation.GIST || item.presentation() == Presentation.TOPIC_CUE) {
            m.put("shown_as", item.presentation().code());
        }
        if (item.truncated()) {
            m.put("truncated", true);
        }
        // The exact time in the pack's own format, or the coarse label of an old item (F2).
        m.put("time", item.timeLabel().contains("T") ? time(item.occurredAt()) : item.timeLabel());
        if (item.status() != null && item.status() != Status.CURRENT) {
            m.put("status", item.status().code());
        }
        return m;
    }

    private static Map<String, Object> emotion(CurrentEmotion.State s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("label", s.emotion().label());
        m.put("valence", Math.round(s.emotion().valence() * 100) / 100.0);
        m.put("arousal", Math.round(s.emotion().arousal() * 100) / 100.0);
        m.put("expressed_at", time(s.expressedAt()));
        return m;
    }

    private static Map<String, Object> turn(Event e, int cap, boolean withSession) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", time(e.occurredAt()));
        if (withSession) {
            m.put("session", e.sessionId());
        }
        m.put("role", e.role().code());
        String text = Limits.prefix(e.text(), cap);
        m.put("text", text);
        if (text.length() < e.text().length()) {
            m.put("truncated", true);
        }
        return m;
    }

    private static String time(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** The context being built: a component stays only if the whole document with it fits. */
    private static final class Fitter {
        private final TokenCounter counter;
        private final int budget;
        private final Map<String, Object> document = new LinkedHashMap<>();
        private final Map<String, Integer> included = new LinkedHashMap<>();
        private final List<String> omitted = new ArrayList<>();
        private String text = "";
        private int tokens = 0;

        Fitter(TokenCounter counter, int budget) {
            this.counter = counter;
            this.budget = budget;
            document.put("about", FRAMING);
        }

        boolean tryAdd(Component c, Object part, int items) {
            document.put(c.key(), part);
            String candidate = JSON.writeValueAsString(document);
            if (fits(candidate)) {
                text = candidate;
                tokens = -1;
                included.put(c.key(), items);
                return true;
            }
            document.remove(c.key());
            omitted.add(c.key());
            return false;
        }

        /**
         * Whether a text is within the budget. Both OpenAI encodings are byte-level BPE, so a text
         * never has more tokens than UTF-8 bytes: a text within the budget in bytes needs no
         * tokenizer run; only one over it is counted in tokens.
         */
        private boolean fits(String candidate) {
            int bytes = candidate.getBytes(StandardCharsets.UTF_8).length;
            return bytes <= budget || (counter != TokenCounter.UTF8_BYTES && counter.count(candidate) <= budget);
        }

        /** The count of the context built, by the request's counter (P5). */
        int tokens() {
            if (tokens < 0) {
                tokens = counter.count(text);
            }
            return tokens;
        }
    }
}
