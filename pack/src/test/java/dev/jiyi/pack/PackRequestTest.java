package dev.jiyi.pack;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Scope;
import dev.jiyi.ranking.RecallMode;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** O7 for the pack's input: bad input is rejected naming the field and the rule, never echoing the value. */
class PackRequestTest {

    static final Scope SCOPE = Scope.DEFAULT;

    static void assertInvalid(ThrowingCallable call, String field, String... values) {
        assertThatThrownBy(call).isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).contains(field);
            for (String v : values) {
                assertThat(e.getMessage()).as("the message must not echo the value").doesNotContain(v);
            }
        });
    }

    static PackRequest request(int budget, String model, String query, String session) {
        return new PackRequest(SCOPE, budget, model, query, session, RecallMode.FAST);
    }

    @Test
    @DisplayName("O7 P5 a budget of 0, a negative budget or one above the maximum is rejected naming budget")
    void badBudget() {
        assertInvalid(() -> request(0, null, null, null), "budget");
        assertInvalid(() -> request(-7, null, null, null), "budget", "-7");
        assertInvalid(() -> request(Integer.MIN_VALUE, null, null, null), "budget", Integer.toString(Integer.MIN_VALUE));
        assertInvalid(() -> request(PackRequest.MAX_BUDGET + 1, null, null, null), "budget",
                Integer.toString(PackRequest.MAX_BUDGET + 1));
        assertInvalid(() -> request(Integer.MAX_VALUE, null, null, null), "budget", Integer.toString(Integer.MAX_VALUE));
        assertThat(request(1, null, null, null).budget()).isEqualTo(1);
        assertThat(request(PackRequest.MAX_BUDGET, null, null, null).budget()).isEqualTo(PackRequest.MAX_BUDGET);
    }

    @Test
    @DisplayName("O7 a model name that is too long or holds a NUL or a lone surrogate is rejected naming model")
    void badModel() {
        String tooLong = "secret-model-name-".repeat(12);
        assertThat(tooLong.length()).isGreaterThan(PackRequest.MAX_MODEL);
        assertInvalid(() -> request(100, tooLong, null, null), "model", "secret-model-name");
        assertInvalid(() -> request(100, "gpt\u0000-4-hidden", null, null), "model", "hidden");
        assertInvalid(() -> request(100, "gpt-4\uD800-hidden", null, null), "model", "hidden");
        assertThat(request(100, "m".repeat(PackRequest.MAX_MODEL), null, null).model()).hasSize(PackRequest.MAX_MODEL);
    }

    @Test
    @DisplayName("O7 an invalid session ID (empty, whitespace, control characters, too long) is rejected naming session")
    void badSession() {
        assertInvalid(() -> request(100, null, null, ""), "session");
        assertInvalid(() -> request(100, null, null, "has secret space"), "session", "secret");
        assertInvalid(() -> request(100, null, null, "tab\tsecret"), "session", "secret");
        assertInvalid(() -> request(100, null, null, "x".repeat(201) + "secret"), "session", "secret");
    }

    @Test
    @DisplayName("O7 a query that is too long or not valid Unicode is rejected naming query")
    void badQuery() {
        String tooLong = "秘密查询 secret query ".repeat(2000);
        assertThat(tooLong.length()).isGreaterThan(20_000);
        assertInvalid(() -> request(100, null, tooLong, null), "query", "秘密查询", "secret query");
        assertInvalid(() -> request(100, null, "secret\uDC00query", null), "query", "secret");
        assertInvalid(() -> request(100, null, "secret\u0000query", null), "query", "secret");
    }

    @Test
    @DisplayName("S1 a request without a scope is rejected naming scope")
    void noScope() {
        assertInvalid(() -> new PackRequest(null, 100, null, null, null, RecallMode.FAST), "scope");
    }

    @Test
    @DisplayName("P1 S3 a scope and session with no data give an ok pack of framing and the neutral default persona, the rest named empty")
    void sessionWithoutData(@TempDir Path dir) {
        try (PackFixture f = new PackFixture(dir)) {
            Pack p = f.pack(SCOPE, 4000, null, null, "never-used");
            assertThat(p.status()).isEqualTo(Pack.OK);
            assertThat(PackFixture.keys(PackFixture.parse(p.context()))).containsExactly("about", "persona");
            assertThat(p.empty()).containsExactly("checkpoint", "agreements_and_growth", "recalled_memories",
                    "current_emotion", "recent_events");
            assertThat(p.omitted()).isEmpty();
            assertThat(PackFixture.parse(p.context()).get("persona").toString()).as("the neutral default persona (S3)")
                    .contains(dev.jiyi.authority.Authority.NEUTRAL_PERSONA.substring(0, 30));
        }
    }
}
