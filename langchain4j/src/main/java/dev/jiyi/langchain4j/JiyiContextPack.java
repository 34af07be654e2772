package dev.jiyi.langchain4j;

import dev.jiyi.pack.Pack;
import dev.jiyi.pack.PackRequest;

import java.util.function.Function;

/**
 * jiyi's context pack ({@code session_resume}) as the system message of a LangChain4j assistant: the
 * persona, the conversation's latest checkpoint, what was agreed, the current emotion and the
 * memories recalled for where the conversation stands, within a token budget counted with the
 * model's tokenizer where jtokkit has it (GPT-4o's and GPT-4's families), else in UTF-8 bytes.
 *
 * <p>It is a {@code Function<Object, String>} from the chat memory ID to the system text, which is
 * what {@code AiServices.builder(...).systemMessageProvider(...)} takes. The conversation's session
 * is its memory ID (see {@link JiyiSessions#of}). When the budget cannot hold even the
 * pack's framing, there is no system message (the function returns null); {@link #pack(Object)}
 * says why.
 *
 * <pre>{@code
 * try (JiyiContextPack resume = JiyiContextPack.builder().home(home).model("gpt-4o").budget(2_000).build()) {
 *     Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
 *             .systemMessageProvider(resume).build();
 * }
 * }</pre>
 */
public final class JiyiContextPack implements Function<Object, String>, AutoCloseable {

    /** The words before the pack in the system message when the builder sets none. */
    public static final String DEFAULT_PREAMBLE =
            "What you remember of this user and conversation (jiyi context pack, JSON; use it, do not recite it):";

    private final Memory memory;
    private final int budget;
    private final String model;
    private final String preamble;

    private JiyiContextPack(Memory memory, int budget, String model, String preamble) {
        this.memory = memory;
        this.budget = budget;
        this.model = model;
        this.preamble = preamble;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The pack for the conversation {@code memoryId}, with its status, size and what it left out. */
    public Pack pack(Object memoryId) {
        String session = JiyiSessions.of(memoryId);
        PackRequest request = Memory.refused(() -> new PackRequest(memory.scope(), budget, model, null, session, memory.mode()));
        return Memory.refused(() -> memory.engine().pack(memory.index(), request));
    }

    /** The system text for the conversation {@code memoryId}: the preamble and the pack, or null when nothing fits. */
    @Override
    public String apply(Object memoryId) {
        Pack pack = pack(memoryId);
        if (!Pack.OK.equals(pack.status()) || pack.context().isEmpty()) {
            return null;
        }
        return preamble.isEmpty() ? pack.context() : preamble + "\n" + pack.context();
    }

    /** Closes the engine if this pack opened it (a home given to the builder). */
    @Override
    public void close() {
        memory.close();
    }

    /** Where the pack is made from and how big it may be. A home or an engine is required. */
    public static final class Builder extends MemorySettings<Builder> {
        private int budget = PackRequest.DEFAULT_BUDGET;
        private String model;
        private String preamble = DEFAULT_PREAMBLE;

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /** The most tokens of the model (or UTF-8 bytes without one) the pack may take, 1 to 1,000,000 (4,000 unless set). */
        public Builder budget(int budget) {
            this.budget = budget;
            return this;
        }

        /** The model the pack is for, which picks the tokenizer its budget is counted with (e.g. {@code gpt-4o}). */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /** The words before the pack in the system message; empty for the pack alone. */
        public Builder preamble(String preamble) {
            if (preamble == null) {
                throw new IllegalArgumentException("preamble: is required (empty for none)");
            }
            this.preamble = preamble;
            return this;
        }

        public JiyiContextPack build() {
            // The request's own rules, checked now rather than at the first message.
            Memory.refused(() -> new PackRequest(dev.jiyi.authority.Scope.DEFAULT, budget, model, null, null, null));
            return new JiyiContextPack(memory(), budget, model, preamble);
        }
    }
}
