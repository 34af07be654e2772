package dev.jiyi.langchain4j;

import dev.jiyi.engine.Views;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecalledItem;

import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.query.Query;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * jiyi's recall as a LangChain4j {@link ContentRetriever}: an {@code AiServices} assistant (or any
 * retrieval augmentor) gets the memories and raw turns recall finds for the user's message, best
 * first, each with where it came from.
 *
 * <p>Each {@link Content} is the recalled text (a memory, its gist or cue once old, or a raw turn)
 * with {@link ContentMetadata#SCORE} and the segment's metadata as {@code jiyi recall --json} names
 * it: {@code type} ({@code memory} or {@code raw_event}), {@code memory_id}, {@code source_event_id},
 * {@code evidence}, {@code kind} and {@code basis} (or a raw turn's {@code category}),
 * {@code valid_at}, {@code invalid_at}, {@code status}, {@code time_label}, {@code presentation},
 * {@code score}, {@code confidence} and {@code truncated}.
 *
 * <p>When LangChain4j passes the conversation (an assistant with chat memory does), recall is asked
 * with the last turns of it as a dialogue, the user's message newest: a follow-up such as "名字是什么？"
 * then finds what the turns before it were about. A message with no words finds nothing.
 *
 * <pre>{@code
 * try (JiyiContentRetriever memory = JiyiContentRetriever.builder().home(Path.of("/data/jiyi")).build()) {
 *     Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
 *             .contentRetriever(memory).build();
 * }
 * }</pre>
 */
public final class JiyiContentRetriever implements ContentRetriever, AutoCloseable {

    /** Results recalled when the builder sets none. */
    public static final int DEFAULT_MAX_RESULTS = 5;
    /** Earlier turns of the conversation asked with the message when the builder sets none. */
    public static final int DEFAULT_DIALOGUE_TURNS = 6;

    private final Memory memory;
    private final int maxResults;
    private final int dialogueTurns;

    private JiyiContentRetriever(Memory memory, int maxResults, int dialogueTurns) {
        this.memory = memory;
        this.maxResults = maxResults;
        this.dialogueTurns = dialogueTurns;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Content> retrieve(Query query) {
        if (query == null || query.text() == null) {
            throw new IllegalArgumentException("query: is required");
        }
        if (query.text().isBlank()) {
            return List.of();
        }
        List<String> turns = dialogue(query);
        RecallRequest request = Memory.refused(() -> turns.size() > 1
                ? RecallRequest.dialogue(memory.scope(), turns, memory.mode(), maxResults, null, false)
                : new RecallRequest(memory.scope(), query.text(), memory.mode(), maxResults, null, false));
        List<RecalledItem> items = Memory.refused(() -> memory.engine().recall(memory.index(), request)).items();
        List<Content> out = new ArrayList<>(items.size());
        for (RecalledItem item : items) {
            out.add(content(item));
        }
        return out;
    }

    /**
     * The turns recall is asked with: up to {@link #dialogueTurns} user and assistant messages of the
     * conversation before the query (system messages, tool calls and their results are not turns),
     * then the query itself, unless the conversation already ends with it.
     */
    private List<String> dialogue(Query query) {
        List<String> turns = new ArrayList<>();
        if (dialogueTurns > 0 && query.metadata() != null && query.metadata().chatMemory() != null) {
            for (ChatMessage m : query.metadata().chatMemory()) {
                String text = turnText(m);
                if (text != null && !text.isBlank()) {
                    turns.add(text);
                }
            }
            if (!turns.isEmpty() && turns.getLast().strip().equals(query.text().strip())) {
                turns.removeLast();
            }
            turns = new ArrayList<>(turns.subList(Math.max(0, turns.size() - dialogueTurns), turns.size()));
        }
        turns.add(query.text());
        // A long conversation gives up its oldest turns rather than fail the newest (a dialogue's limit is on all of it).
        int length = turns.stream().mapToInt(t -> t.strip().length() + 1).sum();
        while (turns.size() > 1 && length > RecallRequest.MAX_QUERY) {
            length -= turns.removeFirst().strip().length() + 1;
        }
        return turns;
    }

    /** A user message's text (its text parts joined) or an assistant's text; null for anything else. */
    static String turnText(ChatMessage m) {
        if (m instanceof UserMessage u) {
            return u.hasSingleText() ? u.singleText()
                    : String.join("\n", u.contents().stream()
                            .filter(c -> c instanceof dev.langchain4j.data.message.TextContent)
                            .map(c -> ((dev.langchain4j.data.message.TextContent) c).text()).toList());
        }
        if (m instanceof AiMessage a) {
            return a.text();
        }
        return null;
    }

    /** One recalled item as a Content: its text, its score, and its recall fields as metadata. */
    static Content content(RecalledItem item) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : Views.recalledItem(item, false).entrySet()) {
            Object v = e.getValue();
            if (e.getKey().equals("text") || v == null) {
                continue;
            }
            fields.put(e.getKey(), v instanceof Number || v instanceof String ? v : v.toString());
        }
        Map<ContentMetadata, Object> scored = Map.of(ContentMetadata.SCORE, item.score());
        return Content.from(TextSegment.from(item.text(), Metadata.from(fields)), scored);
    }

    /** Closes the engine if this retriever opened it (a home given to the builder). */
    @Override
    public void close() {
        memory.close();
    }

    /** Where the retriever recalls from and how. A home or an engine is required. */
    public static final class Builder extends MemorySettings<Builder> {
        private int maxResults = DEFAULT_MAX_RESULTS;
        private int dialogueTurns = DEFAULT_DIALOGUE_TURNS;

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /** Results per query, 1 to 200 ({@value JiyiContentRetriever#DEFAULT_MAX_RESULTS} unless set). */
        public Builder maxResults(int maxResults) {
            this.maxResults = maxResults;
            return this;
        }

        /**
         * Earlier turns of the conversation recall is asked with, 0 for the message alone
         * ({@value JiyiContentRetriever#DEFAULT_DIALOGUE_TURNS} unless set).
         */
        public Builder dialogueTurns(int dialogueTurns) {
            this.dialogueTurns = dialogueTurns;
            return this;
        }

        public JiyiContentRetriever build() {
            if (maxResults < 1 || maxResults > RecallRequest.MAX_LIMIT) {
                throw new IllegalArgumentException("maxResults: must be between 1 and " + RecallRequest.MAX_LIMIT);
            }
            if (dialogueTurns < 0 || dialogueTurns >= RecallRequest.MAX_TURNS) {
                throw new IllegalArgumentException("dialogueTurns: must be between 0 and " + (RecallRequest.MAX_TURNS - 1));
            }
            return new JiyiContentRetriever(memory(), maxResults, dialogueTurns);
        }
    }
}
