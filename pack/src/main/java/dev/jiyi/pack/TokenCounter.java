package dev.jiyi.pack;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * Counts what a budget measures (P5): tokens of a known OpenAI encoding, or UTF-8 bytes for every
 * other model, a deliberately conservative estimate (no tokenizer in use maps fewer than one byte to
 * a token). Counts cover the text given, nothing else: metadata and protocol overhead are outside
 * the budget.
 *
 * <p>The model name picks the encoding, case-insensitively and after any {@code provider/} prefix:
 * <ul>
 *   <li>{@code o200k_base}: {@code gpt-4o*}, {@code chatgpt-4o*}, {@code gpt-4.1*}, {@code gpt-4.5*},
 *       {@code gpt-5*}, {@code gpt-oss*}, {@code o1*}, {@code o3*}, {@code o4*}, and the name
 *       {@code o200k_base} itself;</li>
 *   <li>{@code cl100k_base}: the other {@code gpt-4*}, {@code gpt-3.5*} / {@code gpt-35*},
 *       {@code text-embedding-ada-002}, {@code text-embedding-3*}, and {@code cl100k_base};</li>
 *   <li>UTF-8 bytes: anything else, and no model at all.</li>
 * </ul>
 */
public final class TokenCounter {

    /** Model-name prefixes that use o200k_base, checked before the cl100k ones ({@code gpt-4o} is a {@code gpt-4}). */
    private static final List<String> O200K = List.of("o200k_base", "gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5",
            "gpt-5", "gpt-oss", "o1", "o3", "o4");
    private static final List<String> CL100K = List.of("cl100k_base", "gpt-4", "gpt-3.5", "gpt-35",
            "text-embedding-ada-002", "text-embedding-3");

    /** Encodings are loaded on first use: an unknown model never pays for reading a vocabulary. */
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    /** The UTF-8 byte counter. */
    public static final TokenCounter UTF8_BYTES = new TokenCounter("utf8_bytes", null);

    private final String name;
    private final EncodingType type;

    private TokenCounter(String name, EncodingType type) {
        this.name = name;
        this.type = type;
    }

    /** The counter for a model name (see the class comment); null or blank means UTF-8 bytes. */
    public static TokenCounter forModel(String model) {
        if (model == null || model.isBlank()) {
            return UTF8_BYTES;
        }
        String m = model.strip().toLowerCase(Locale.ROOT);
        m = m.substring(m.lastIndexOf('/') + 1);
        for (String prefix : O200K) {
            if (m.startsWith(prefix)) {
                return new TokenCounter("o200k_base", EncodingType.O200K_BASE);
            }
        }
        for (String prefix : CL100K) {
            if (m.startsWith(prefix)) {
                return new TokenCounter("cl100k_base", EncodingType.CL100K_BASE);
            }
        }
        return UTF8_BYTES;
    }

    /** {@code cl100k_base}, {@code o200k_base} or {@code utf8_bytes}. */
    public String name() {
        return name;
    }

    /**
     * The count of {@code text}. Special-token spellings such as {@code <|endoftext|>} in the text
     * are counted as the ordinary text they are.
     */
    public int count(String text) {
        if (type == null) {
            return text.getBytes(StandardCharsets.UTF_8).length;
        }
        Encoding encoding = REGISTRY.getEncoding(type);
        return encoding.countTokensOrdinary(text);
    }

    @Override
    public String toString() {
        return name;
    }
}
