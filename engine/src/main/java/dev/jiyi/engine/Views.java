package dev.jiyi.engine;

import dev.jiyi.authority.Checkpoint;
import dev.jiyi.authority.Correction;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.DoctorReport;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryView;
import dev.jiyi.authority.Persona;
import dev.jiyi.authority.Relation;
import dev.jiyi.authority.Times;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;
import dev.jiyi.ranking.Signal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stable JSON shapes of {@code --json} output (documented in {@code docs/cli.md}): snake_case
 * keys in a fixed order, times as UTC ISO-8601 text, absent values as null.
 */
public final class Views {

    private Views() {
    }

    static Map<String, Object> event(Event e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sequence", e.sequence());
        m.put("id", e.id());
        m.put("persona", e.scope().personaId());
        m.put("project", e.scope().projectId());
        m.put("role", e.role().code());
        m.put("source", e.source());
        m.put("category", e.category().code());
        m.put("session", e.sessionId());
        m.put("text", e.text());
        m.put("occurred_at", Times.format(e.occurredAt()));
        m.put("ingested_at", Times.format(e.ingestedAt()));
        m.put("extraction", e.extraction().code());
        m.put("extraction_error", e.extractionError());
        m.put("amended", e.amended());
        return m;
    }

    /** A submitted event: whether this call created it or found it already stored (E2), and the event. */
    public static Map<String, Object> submission(Event e, boolean created) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", created ? "created" : "existing");
        m.put("event", event(e));
        return m;
    }

    public static Map<String, Object> memory(Memory x) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", x.id());
        m.put("persona", x.scope().personaId());
        m.put("project", x.scope().projectId());
        m.put("event", x.eventId());
        m.put("kind", x.kind().code());
        m.put("basis", x.basis().code());
        m.put("text", x.text());
        m.put("quote", x.quote());
        m.put("confidence", x.confidence());
        m.put("subject", x.subject());
        m.put("fact_key", x.factKey());
        m.put("valid_at", Times.format(x.validity().validAt()));
        m.put("invalid_at", Times.format(x.validity().invalidAt()));
        m.put("revoked_at", Times.format(x.revokedAt()));
        if (x.emotion() == null) {
            m.put("emotion", null);
        } else {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("label", x.emotion().label());
            e.put("valence", x.emotion().valence());
            e.put("arousal", x.emotion().arousal());
            m.put("emotion", e);
        }
        m.put("gist", x.gist());
        m.put("cues", x.cueKeys());
        m.put("created_at", Times.format(x.createdAt()));
        return m;
    }

    public static Map<String, Object> relation(Relation r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("from", r.fromId());
        m.put("to", r.toId());
        m.put("type", r.type().code());
        m.put("created_at", Times.format(r.createdAt()));
        return m;
    }

    public static Map<String, Object> persona(Persona p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("persona", p.personaId());
        m.put("version", p.version());
        m.put("content", p.content());
        m.put("note", p.note());
        m.put("created_at", Times.format(p.createdAt()));
        return m;
    }

    public static Map<String, Object> checkpoint(Checkpoint c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("persona", c.scope().personaId());
        m.put("project", c.scope().projectId());
        m.put("session", c.sessionId());
        m.put("goal", c.goal());
        m.put("done", c.done());
        m.put("pending", c.pending());
        m.put("constraints", c.constraints());
        m.put("next", c.nextAction());
        m.put("covered_seq", c.coveredSequence());
        m.put("created_at", Times.format(c.createdAt()));
        m.put("invalidated_at", Times.format(c.invalidatedAt()));
        m.put("note", "host-reported; not a proof that the work happened");
        return m;
    }

    public static Map<String, Object> memoryView(MemoryView v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("memory", memory(v.memory()));
        Map<String, Object> source = event(v.source());
        source.remove("text");
        m.put("source", source);
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("page", v.page().page());
        page.put("total_pages", v.page().totalPages());
        page.put("page_size", v.page().pageSize());
        page.put("total_characters", v.page().totalCharacters());
        page.put("text", v.page().text());
        m.put("source_page", page);
        m.put("co_derived", v.coDerived().stream().map(Views::memory).toList());
        m.put("relations", v.relations().stream().map(Views::relation).toList());
        Map<String, Object> lineage = new LinkedHashMap<>();
        lineage.put("corrects", v.corrects().stream().map(Views::memory).toList());
        lineage.put("corrected_by", v.correctedBy().stream().map(Views::memory).toList());
        m.put("lineage", lineage);
        return m;
    }

    /** A context pack: its status, the context text and the metadata outside the budget (P1, P5). */
    public static Map<String, Object> pack(dev.jiyi.pack.Pack p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", p.status());
        m.put("context", p.context());
        m.put("tokens", p.tokens());
        m.put("budget", p.budget());
        m.put("tokenizer", p.tokenizer());
        m.put("included", p.included());
        m.put("omitted", p.omitted());
        m.put("empty", p.empty());
        m.put("recalled_by", p.recalledBy());
        m.put("warnings", p.warnings());
        return m;
    }

    /** A correction (C1): the correction event, the revoked and corrected memories, the link between them. */
    public static Map<String, Object> correction(Correction c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event", event(c.event()));
        m.put("revoked", memory(c.revoked()));
        m.put("corrected", memory(c.corrected()));
        m.put("relation", relation(c.relation()));
        m.put("checkpoints_invalidated", c.checkpointsInvalidated());
        return m;
    }

    public static Map<String, Object> deletion(Deletion d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("events", d.eventIds());
        m.put("memories", d.memoryIds());
        m.put("relations_removed", d.relationsRemoved());
        m.put("vectors_removed", d.vectorsRemoved());
        m.put("checkpoints_removed", d.checkpointsRemoved());
        m.put("checkpoints_invalidated", d.checkpointsInvalidated());
        return m;
    }

    /** One event's way through the ingest pipeline. */
    public static Map<String, Object> ingest(Ingest.Outcome o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event_id", o.event().id());
        m.put("extraction", o.status().name().toLowerCase(java.util.Locale.ROOT));
        if (o.reason() != null) {
            m.put("reason", o.reason());
        }
        m.put("memory_ids", o.memories().stream().map(Memory::id).toList());
        List<Map<String, Object>> rejected = new ArrayList<>();
        for (dev.jiyi.authority.Rejection r : o.rejected()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("index", r.index());
            x.put("field", r.field());
            x.put("rule", r.rule());
            rejected.add(x);
        }
        m.put("rejected", rejected);
        if (o.status() == Ingest.Status.EXTRACTED) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("stored", o.vectors().stored());
            v.put("missing", o.vectors().missing());
            if (o.vectors().failure() != null) {
                v.put("failure", o.vectors().failure());
            }
            m.put("vectors", v);
        }
        return m;
    }

    /** The same outcome as lines of human text. */
    public static List<String> ingestText(Ingest.Outcome o) {
        List<String> lines = new ArrayList<>();
        String id = o.event().id();
        switch (o.status()) {
            case EXTRACTED -> lines.add("extracted event " + id + ": " + o.memories().size() + " memory(ies) saved, "
                    + o.rejected().size() + " item(s) rejected");
            case ALREADY_EXTRACTED -> lines.add("event " + id + " was already extracted: " + o.memories().size()
                    + " existing memory(ies), nothing new");
            case PENDING -> lines.add("event " + id + " saved; extraction pending: " + o.reason());
            case SKIPPED -> lines.add("event " + id + " is reference or persona material: archived, not extracted");
            case DELETED -> lines.add("event " + id + " was deleted while it was being extracted: nothing was derived");
        }
        for (Memory memory : o.memories()) {
            lines.add("  " + memory.id() + "  " + memory.kind().code() + "/" + memory.basis().code() + "  " + memory.text());
        }
        for (dev.jiyi.authority.Rejection r : o.rejected()) {
            lines.add("  rejected item " + r.index() + ": " + r.field() + ": " + r.rule());
        }
        return lines;
    }

    public static Map<String, Object> doctor(DoctorReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("healthy", r.healthy());
        m.put("schema_version", r.schemaVersion());
        m.put("integrity", r.integrity());
        m.put("foreign_key_violations", r.foreignKeyViolations());
        m.put("tables", r.tableCounts().byName());
        m.put("pending_extractions", r.pendingExtractions());
        m.put("problems", r.problems());
        return m;
    }

    public static List<Map<String, Object>> personas(List<Persona> ps) {
        return ps.stream().map(Views::persona).toList();
    }

    /** A recall result as {@code recall --json} and {@code memory_recall} give it; {@code tag} of a batch line, or null. */
    public static Map<String, Object> recall(String tag, String query, RecallResult result, boolean explain) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (tag != null) {
            m.put("tag", tag);
        }
        m.put("query", query);
        m.put("results", result.items().stream().map(i -> recalledItem(i, explain)).toList());
        m.put("warnings", result.warnings());
        return m;
    }

    /** One recalled item; with {@code explain}, its signals. */
    public static Map<String, Object> recalledItem(RecalledItem i, boolean explain) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", i.type().code());
        if (i.memoryId() != null) {
            m.put("memory_id", i.memoryId());
        }
        m.put("source_event_id", i.sourceEventId());
        m.put("score", round(i.score()));
        m.put("text", i.text());
        m.put("presentation", i.presentation().code());
        if (i.type() == RecalledItem.Type.RAW_EVENT) {
            m.put("label", "raw_event");
            m.put("category", i.category().code());
        } else {
            m.put("kind", i.kind().code());
            m.put("basis", i.basis().code());
            m.put("confidence", i.confidence());
            m.put("valid_at", Times.format(i.validity().validAt()));
            m.put("invalid_at", Times.format(i.validity().invalidAt()));
        }
        m.put("time_label", i.timeLabel());
        m.put("status", i.status().code());
        m.put("truncated", i.truncated());
        m.put("evidence", i.evidence().code());
        if (explain) {
            Map<String, Object> signals = new LinkedHashMap<>();
            for (Signal.Value s : i.signals()) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("value", round(s.value()));
                one.put("weight", s.weight());
                one.put("contribution", round(s.contribution()));
                signals.put(s.name(), one);
            }
            m.put("explain", signals);
        }
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 1_000_000d) / 1_000_000d;
    }
}
