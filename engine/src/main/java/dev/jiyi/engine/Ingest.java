package dev.jiyi.engine;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Extraction;
import dev.jiyi.authority.ExtractionState;
import dev.jiyi.authority.ExtractionBatch;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Rejection;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;
import dev.jiyi.providers.ExtractedMemory;
import dev.jiyi.providers.ExtractionAnswer;
import dev.jiyi.providers.ExtractionInput;
import dev.jiyi.providers.Extractor;
import dev.jiyi.providers.ItemProblem;
import dev.jiyi.providers.ProviderException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The ingest pipeline, shared by the CLI and the MCP server: commit the event with its extraction
 * queued (E5); call the extraction model outside any transaction (X1); validate the answer and
 * derive everything from it in one transaction (X3, X4); embed the new memories, also outside any
 * transaction, and store their vectors after rechecking them (V2). A provider failure leaves the
 * event pending with a sanitized reason (X2); {@code retry} (or submitting the event again) resumes.
 */
public final class Ingest {

    /** How an event's extraction ended this time. */
    public enum Status {
        /** The model answered and its accepted items were saved. */
        EXTRACTED,
        /** The event had been extracted before: its existing memories, nothing new (X5). */
        ALREADY_EXTRACTED,
        /** Extraction failed or cannot run; the event is saved and pending (X2). */
        PENDING,
        /**
         * Never extracted: reference and persona events (E6), and events a correction amended or
         * that already have memories (their text no longer speaks for itself: C3).
         */
        SKIPPED,
        /** The event was deleted while its extraction was under way: nothing was derived. */
        DELETED
    }

    /**
     * The vectors of an extraction's new memories (V2): how many were stored, and why the rest were
     * not (null when all were).
     */
    public record Vectors(int stored, int missing, String failure) {
        static final Vectors NONE = new Vectors(0, 0, null);
    }

    /**
     * One event's way through the pipeline.
     *
     * @param created whether this submission created the event (false for a retry)
     * @param reason why it is pending (sanitized), or null
     */
    public record Outcome(Event event, boolean created, Status status, List<Memory> memories, List<Rejection> rejected,
                          String reason, Vectors vectors, boolean endpointFailure) {

        public Outcome {
            memories = List.copyOf(memories);
            rejected = List.copyOf(rejected);
        }

        Outcome(Event event, boolean created, Status status, List<Memory> memories, List<Rejection> rejected,
                String reason, Vectors vectors) {
            this(event, created, status, memories, rejected, reason, vectors, false);
        }

        /**
         * True when extraction is pending because of the endpoint (unreachable, a timeout, a rate
         * limit, a server error, none configured) rather than this event: work after it waits too.
         */
        public boolean stopsQueue() {
            return status == Status.PENDING && endpointFailure;
        }
    }

    /** What {@link #retryPending} did: the outcomes, and how many events it left pending untried. */
    public record Retry(List<Outcome> outcomes, int untried) {
    }

    private final Authority authority;
    private final Supplier<Extractor> extractor;
    private final Supplier<Embedders> embedders;
    private Extractor model;
    private boolean resolved;

    /**
     * @param extractor gives the extraction client, or null when none is configured; asked only when
     *                  an event is to be extracted
     * @param embedders gives the embedding models; asked only when there are new memories to embed
     */
    public Ingest(Authority authority, Supplier<Extractor> extractor, Supplier<Embedders> embedders) {
        this.authority = authority;
        this.extractor = extractor;
        this.embedders = embedders;
    }

    /**
     * Reads the extraction settings, so that a configuration mistake is reported before anything
     * is committed (an endpoint that is merely absent is not a mistake: the event waits, pending).
     */
    public void checkConfiguration() {
        extractor();
    }

    private Extractor extractor() {
        if (!resolved) {
            model = extractor.get();
            resolved = true;
        }
        return model;
    }

    /** Commits the event with its extraction queued (E5), then extracts it. */
    public Outcome submit(EventSubmission submission) {
        checkConfiguration();
        SubmitResult stored = authority.submitForExtraction(submission);
        return extract(stored.event(), stored.created());
    }

    /** {@code retry --event ID}: extracts one event (queueing it first if it never was). */
    public Outcome retry(Scope scope, String eventId) {
        checkConfiguration();
        Event event = authority.requestExtraction(scope, eventId);
        return extract(event, false);
    }

    /**
     * {@code retry}: extracts the scope's pending events in order. It stops at the first failure
     * that is about the endpoint rather than the event (unreachable, timeout, rate limit, server
     * error), so that a down endpoint costs one timeout, not one per event; the rest stay pending.
     * A failure about one event (an unusable answer, an HTTP 400 such as a context-length refusal)
     * does not stop it: one event the model refuses never blocks the others.
     */
    public Retry retryPending(Scope scope) {
        checkConfiguration();
        List<Outcome> outcomes = new ArrayList<>();
        long after = 0;
        while (true) {
            List<Event> page = authority.pendingExtractions(scope, after, PAGE);
            if (page.isEmpty()) {
                return new Retry(outcomes, 0);
            }
            for (Event event : page) {
                Outcome outcome = extract(event, false);
                outcomes.add(outcome);
                after = event.sequence();
                if (outcome.stopsQueue()) {
                    int untried = 0;
                    for (List<Event> rest = authority.pendingExtractions(scope, after, PAGE); !rest.isEmpty();
                         rest = authority.pendingExtractions(scope, after, PAGE)) {
                        untried += rest.size();
                        after = rest.getLast().sequence();
                    }
                    return new Retry(outcomes, untried);
                }
            }
        }
    }

    private static final int PAGE = 100;

    /**
     * Extracts events a batch just queued (E5), in order, until the endpoint fails (a failure that
     * stops the queue): the rest stay pending, counted as untried, for {@code retry} to resume.
     */
    public Retry extractQueued(List<SubmitResult> queued) {
        List<Outcome> outcomes = new ArrayList<>();
        int untried = 0;
        for (SubmitResult r : queued) {
            if (!outcomes.isEmpty() && outcomes.getLast().stopsQueue()) {
                untried++; // the endpoint is down: one timeout, not one per line; retry resumes
                continue;
            }
            outcomes.add(extract(r.event(), r.created()));
        }
        return new Retry(outcomes, untried);
    }

    /** The reason prefix of an answer that was received but unusable: about this event, not the endpoint. */
    static final String MALFORMED_PREFIX = "extraction answer unusable: ";

    /**
     * Whether a failure is about the endpoint rather than the event: HTTP 400, 413 and 422 (a
     * request the model refuses, such as one over its context length) and an unusable answer are
     * the event's; everything else (network, timeout, 401, 403, 404, 408, 429, 5xx) the endpoint's.
     */
    static boolean aboutEndpoint(ProviderException e) {
        return switch (e.kind()) {
            case MALFORMED_ANSWER -> false;
            case HTTP_STATUS -> !(e.status() == 400 || e.status() == 413 || e.status() == 422);
            default -> true;
        };
    }

    /**
     * Extracts one stored event, whatever its state: done returns the existing result (X5). An
     * event deleted by another process while the model was answering ends {@link Status#DELETED}:
     * the late answer derives nothing.
     */
    public Outcome extract(Event event, boolean created) {
        try {
            return extractStored(event, created);
        } catch (NotFoundException gone) {
            return new Outcome(event, created, Status.DELETED, List.of(), List.of(), null, Vectors.NONE);
        }
    }

    private Outcome extractStored(Event event, boolean created) {
        switch (event.extraction()) {
            case DONE -> {
                Extraction existing = authority.extraction(event.scope(), event.id()).orElseThrow();
                return new Outcome(event, created, Status.ALREADY_EXTRACTED, existing.memories(), existing.rejected(),
                        null, Vectors.NONE);
            }
            case SKIPPED -> {
                return new Outcome(event, created, Status.SKIPPED, List.of(), List.of(), event.extractionError(),
                        Vectors.NONE);
            }
            default -> {
                // NONE (never asked) is queued by the callers; PENDING is the normal case
            }
        }
        Extractor model = extractor();
        if (model == null) {
            return pending(event, created, ProviderSettings.NO_EXTRACTOR, true);
        }
        // Read again just before the call: a page of pending events may be minutes old, and text
        // deleted meanwhile must never be sent anywhere (D1); one extracted meanwhile needs no call.
        Event current = authority.event(event.scope(), event.id()).orElseThrow(() -> new NotFoundException("event", event.id()));
        if (current.extraction() == ExtractionState.DONE || current.extraction() == ExtractionState.SKIPPED) {
            return extractStored(current, created);
        }
        ExtractionAnswer answer;
        try {
            answer = model.extract(new ExtractionInput(current.id(), current.role().code(), current.category().code(),
                    Times.format(current.occurredAt()), current.text()));
        } catch (ProviderException e) {
            String reason = e.kind() == ProviderException.Kind.MALFORMED_ANSWER ? MALFORMED_PREFIX + e.getMessage()
                    : e.getMessage();
            return pending(current, created, reason, aboutEndpoint(e));
        }
        Extraction extraction = authority.applyExtraction(current.scope(), current.id(), batch(current, model, answer));
        if (extraction.duplicate()) {
            return new Outcome(extraction.event(), created, Status.ALREADY_EXTRACTED, extraction.memories(),
                    extraction.rejected(), null, Vectors.NONE);
        }
        if (extraction.event().extraction() == ExtractionState.SKIPPED) {
            // Amended or already derived by hand meanwhile: its text no longer speaks for itself (C3).
            return new Outcome(extraction.event(), created, Status.SKIPPED, List.of(), List.of(),
                    extraction.event().extractionError(), Vectors.NONE);
        }
        return new Outcome(extraction.event(), created, Status.EXTRACTED, extraction.memories(), extraction.rejected(),
                null, embed(extraction.memories()));
    }

    private Outcome pending(Event event, boolean created, String reason, boolean endpointFailure) {
        authority.markExtractionPending(event.id(), reason);
        Event now = authority.event(event.scope(), event.id()).orElseThrow(() -> new NotFoundException("event", event.id()));
        if (now.extraction() != ExtractionState.PENDING) {
            // Another process completed it meanwhile: that result stands (X5).
            return extractStored(now, created);
        }
        return new Outcome(now, created, Status.PENDING, List.of(), List.of(), reason, Vectors.NONE, endpointFailure);
    }

    /**
     * The model's items as drafts of this event, each with its position in the answer; items whose
     * shape or values break a rule become rejections (field and rule, never text).
     */
    static ExtractionBatch batch(Event event, Extractor model, ExtractionAnswer answer) {
        List<ExtractionBatch.Proposed> proposed = new ArrayList<>();
        List<Rejection> rejected = new ArrayList<>();
        for (ItemProblem p : answer.problems()) {
            rejected.add(new Rejection(p.index(), p.field(), p.rule()));
        }
        for (ExtractedMemory m : answer.memories()) {
            try {
                proposed.add(new ExtractionBatch.Proposed(m.index(), draft(event, m)));
            } catch (InvalidInputException e) {
                rejected.add(Rejection.of(m.index(), e));
            }
        }
        return new ExtractionBatch(model.fingerprint(), answer.digest(), proposed, rejected);
    }

    /**
     * One item as a draft. Models often send an empty string for an optional field they were told to
     * leave out; an empty optional field (or cue) counts as absent. Required fields are taken as given.
     */
    private static MemoryDraft draft(Event event, ExtractedMemory m) {
        MemoryDraft.Builder b = MemoryDraft.builder(event.id())
                .kind(Kind.parse("kind", m.kind()))
                .basis(Basis.parse("basis", m.basis()))
                .text(m.text())
                .quote(m.quote())
                .confidence(m.confidence())
                .subject(absentIfBlank(m.subject()))
                .factKey(absentIfBlank(m.factKey()))
                .gist(absentIfBlank(m.gist()))
                .cues(m.cues().stream().filter(c -> !c.isBlank()).toList());
        if (absentIfBlank(m.validAt()) != null) {
            b.validAt(Times.parse("valid_at", m.validAt()));
        }
        if (m.emotion() != null) {
            b.emotion(new Emotion(m.emotion().label(), m.emotion().valence(), m.emotion().arousal()));
        }
        return b.build();
    }

    private static String absentIfBlank(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /**
     * V2: embeds new memories, each with the model of its text's language, and stores their
     * vectors; a failure leaves them without vectors.
     */
    private Vectors embed(List<Memory> memories) {
        if (memories.isEmpty()) {
            return Vectors.NONE;
        }
        try {
            Embedders models = embedders.get();
            Map<Embedder, List<Memory>> byModel = new LinkedHashMap<>();
            for (Memory m : memories) {
                byModel.computeIfAbsent(models.forText(m.text()), k -> new ArrayList<>()).add(m);
            }
            Map<String, List<VectorCache.NewVector>> computed = new LinkedHashMap<>();
            for (Map.Entry<Embedder, List<Memory>> group : byModel.entrySet()) {
                List<Memory> some = group.getValue();
                List<float[]> vectors = group.getKey().embed(some.stream().map(Memory::text).toList());
                List<VectorCache.NewVector> mine = computed.computeIfAbsent(group.getKey().fingerprint(), k -> new ArrayList<>());
                for (int i = 0; i < some.size(); i++) {
                    Memory m = some.get(i);
                    mine.add(new VectorCache.NewVector(m.id(), VectorCache.contentHash(m.text()), vectors.get(i)));
                }
            }
            VectorCache.Stored stored = authority.storeVectors(computed);
            return new Vectors(stored.stored(), memories.size() - stored.stored(),
                    stored.skipped() == 0 ? null : "memories changed before their vectors were stored");
        } catch (ProviderException | JiyiException e) {
            // A model failure, a mistake in the embedding settings or a busy database: the memories
            // are saved either way (V2); the message is jiyi's own (field and rule, or provider words).
            return new Vectors(0, memories.size(), e.getMessage());
        }
    }
}
