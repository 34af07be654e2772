package dev.jiyi.lucene;

import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.CompoundDirectory;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.MergeTrigger;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.IOContext;

import java.io.IOException;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Merges that never put events and memories in one segment. A search of memories reads only the
 * segments that hold memories (a segment without the memory text field costs it one null check), so
 * when no segment holds both kinds, each per-segment cost of a search (term lookups, the eligibility
 * sets, the scorers' buffers) is paid for the segments of its own kind only.
 *
 * <p>The follower flushes before it writes a kind other than the one its buffer holds, so every
 * flushed segment holds one kind; this policy keeps merges to one kind too: it hands the wrapped
 * policy each kind's segments on their own, and joins what it proposes (so the tiered policy's
 * allowance of segments a tier holds for each kind). A segment's kind is read from its field infos
 * once (segments never change). Segments of both kinds, written before this policy (or of neither),
 * merge among themselves until a rebuild.
 */
final class OneKindMerges extends FilterMergePolicy {

    /** What a segment holds. */
    enum Kind { EVENTS, MEMORIES, MIXED }

    private final Map<String, Kind> kinds = new ConcurrentHashMap<>();

    OneKindMerges(MergePolicy in) {
        super(in);
    }

    @Override
    public MergeSpecification findMerges(MergeTrigger trigger, SegmentInfos infos, MergeContext context)
            throws IOException {
        return perKind(infos, part -> in.findMerges(trigger, part, context));
    }

    @Override
    public MergeSpecification findForcedMerges(SegmentInfos infos, int maxSegmentCount,
                                               Map<SegmentCommitInfo, Boolean> segmentsToMerge, MergeContext context)
            throws IOException {
        return perKind(infos, part -> in.findForcedMerges(part, maxSegmentCount, segmentsToMerge, context));
    }

    @Override
    public MergeSpecification findForcedDeletesMerges(SegmentInfos infos, MergeContext context) throws IOException {
        return perKind(infos, part -> in.findForcedDeletesMerges(part, context));
    }

    @Override
    public MergeSpecification findFullFlushMerges(MergeTrigger trigger, SegmentInfos infos, MergeContext context)
            throws IOException {
        return perKind(infos, part -> in.findFullFlushMerges(trigger, part, context));
    }

    /** One of the wrapped policy's decisions, over some segments. */
    @FunctionalInterface
    private interface Decision {
        MergeSpecification over(SegmentInfos segments) throws IOException;
    }

    /** The wrapped policy's merges for each kind's segments on their own, together. */
    private MergeSpecification perKind(SegmentInfos infos, Decision decision) throws IOException {
        MergeSpecification out = null;
        for (SegmentInfos part : byKind(infos).values()) {
            MergeSpecification merges = decision.over(part);
            if (out == null) {
                out = merges;
            } else if (merges != null) {
                merges.merges.forEach(out::add);
            }
        }
        return out;
    }

    /** The segments of each kind present, in the index's order. */
    private Map<Kind, SegmentInfos> byKind(SegmentInfos infos) throws IOException {
        Map<Kind, SegmentInfos> parts = new EnumMap<>(Kind.class);
        Set<String> present = new HashSet<>();
        for (SegmentCommitInfo info : infos) {
            present.add(info.info.name);
            Kind kind = kinds.get(info.info.name);
            if (kind == null) {
                kind = kindOf(info);
                kinds.put(info.info.name, kind);
            }
            parts.computeIfAbsent(kind, k -> new SegmentInfos(infos.getIndexCreatedVersionMajor())).add(info);
        }
        kinds.keySet().retainAll(present);
        return parts;
    }

    /** The kind of a segment, from the text fields its field infos name. */
    static Kind kindOf(SegmentCommitInfo info) throws IOException {
        return kindOf(fieldInfos(info));
    }

    /** The kind of a segment of these fields. */
    static Kind kindOf(FieldInfos fields) {
        boolean events = fields.fieldInfo(Documents.EVENT_TEXT) != null;
        boolean memories = fields.fieldInfo(Documents.MEMORY_TEXT) != null;
        return events == memories ? Kind.MIXED : events ? Kind.EVENTS : Kind.MEMORIES;
    }

    /** A segment's field infos, as {@code IndexWriter} reads them (its own method is not public). */
    private static FieldInfos fieldInfos(SegmentCommitInfo info) throws IOException {
        Codec codec = info.info.getCodec();
        if (info.hasFieldUpdates()) {
            String suffix = Long.toString(info.getFieldInfosGen(), Character.MAX_RADIX);
            return codec.fieldInfosFormat().read(info.info.dir, info.info, suffix, IOContext.READONCE);
        }
        if (info.info.getUseCompoundFile()) {
            try (CompoundDirectory cfs = codec.compoundFormat().getCompoundReader(info.info.dir, info.info)) {
                return codec.fieldInfosFormat().read(cfs, info.info, "", IOContext.READONCE);
            }
        }
        return codec.fieldInfosFormat().read(info.info.dir, info.info, "", IOContext.READONCE);
    }
}
