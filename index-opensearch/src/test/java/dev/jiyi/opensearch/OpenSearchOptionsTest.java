package dev.jiyi.opensearch;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.index.Settings;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The cluster's settings: bad ones are refused by key and rule, never echoed; credentials only from the environment. */
class OpenSearchOptionsTest {

    private static Settings settings(String... pairs) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m::get;
    }

    @Test
    @DisplayName("E2 a missing or malformed cluster address is refused with its key and rule, not its value")
    void badAddresses() {
        assertThatThrownBy(() -> OpenSearchOptions.of(settings(), Map.of()))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("index.opensearch.url");
        for (String bad : new String[] {"ftp://secret-host:9200", "secret-host:9200", "http://", "http://[zz", "http://a:9200,,"}) {
            assertThatThrownBy(() -> OpenSearchOptions.of(settings("index.opensearch.url", bad), Map.of()))
                    .isInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("index.opensearch.url")
                    .hasMessageNotContaining("secret-host");
        }
        assertThatThrownBy(() -> OpenSearchOptions.of(settings("index.opensearch.url", "https://admin:hunter2@h:9200"), Map.of()))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("JIYI_OPENSEARCH_USERNAME")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    @DisplayName("E2 index names, shard counts and the credentials' pair are checked")
    void badSettings() {
        for (String bad : new String[] {"Jiyi", "_jiyi", "ji yi", "ji/yi", "x".repeat(101)}) {
            assertThatThrownBy(() -> OpenSearchOptions.of(settings("index.opensearch.url", "http://h:9200",
                    "index.opensearch.index", bad), Map.of()))
                    .isInstanceOf(InvalidInputException.class).hasMessageContaining("index.opensearch.index");
        }
        assertThatThrownBy(() -> OpenSearchOptions.of(settings("index.opensearch.url", "http://h:9200",
                "index.opensearch.shards", "0"), Map.of())).hasMessageContaining("index.opensearch.shards");
        assertThatThrownBy(() -> OpenSearchOptions.of(settings("index.opensearch.url", "http://h:9200"),
                Map.of("JIYI_OPENSEARCH_USERNAME", "admin"))).hasMessageContaining("JIYI_OPENSEARCH_PASSWORD");
    }

    @Test
    @DisplayName("several nodes, the defaults, and credentials that no string of the options repeats")
    void goodSettings() {
        OpenSearchOptions o = OpenSearchOptions.of(settings("index.opensearch.url", " http://a:9200 , https://b "),
                Map.of("JIYI_OPENSEARCH_USERNAME", "admin", "JIYI_OPENSEARCH_PASSWORD", "hunter2"));
        assertThat(o.nodes()).hasSize(2);
        assertThat(o.index()).isEqualTo("jiyi");
        assertThat(o.shards()).isEqualTo(1);
        assertThat(o.replicas()).isEqualTo(1);
        assertThat(o.toString()).doesNotContain("hunter2").doesNotContain("admin");
    }

    @Test
    @DisplayName("a home without a cluster: no backend health, nothing built, no folder made")
    void unconfiguredHome(@TempDir Path home) {
        OpenSearchBackend backend = new OpenSearchBackend(home, settings(), Map.of());
        assertThat(backend.built()).isFalse();
        assertThat(backend.health(null, null)).isEmpty();
        assertThat(Files.exists(home.resolve("opensearch"))).isFalse();
        assertThatThrownBy(backend::recallIndex).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("index.opensearch.url");
    }
}
