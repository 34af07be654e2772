package dev.jiyi.spring;

import dev.jiyi.engine.Home;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallMode;

import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * jiyi in a Spring Boot application: the engine over the configured home, the chat memory
 * repository, and the memory advisor, each only where the application has not declared its own.
 * It comes with this module's jar (nothing registers without it) and steps aside with
 * {@code jiyi.enabled=false}. Spring AI's own chat memory auto-configuration then finds the
 * repository: a {@code MessageWindowChatMemory} over it is jiyi-backed.
 */
@AutoConfiguration(beforeName = "org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration")
@ConditionalOnClass(ChatMemoryRepository.class)
@ConditionalOnProperty(prefix = "jiyi", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(JiyiProperties.class)
public class JiyiAutoConfiguration {

    /** The engine over {@code jiyi.home}; closed with the application context. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Jiyi jiyiEngine(JiyiProperties properties) {
        Home home = Home.resolve(properties.home(), System.getenv());
        return Refusals.refused(() -> Jiyi.open(home, System.getenv()));
    }

    /** The chat memory repository, in {@code jiyi.persona} and {@code jiyi.project}. */
    @Bean
    @ConditionalOnMissingBean(ChatMemoryRepository.class)
    public JiyiChatMemoryRepository jiyiChatMemoryRepository(Jiyi engine, JiyiProperties properties) {
        return new JiyiChatMemoryRepository(engine, properties.persona(), properties.project());
    }

    /** The memory advisor, as {@code jiyi.recall.*} and {@code jiyi.advisor.*} say. */
    @Bean
    @ConditionalOnMissingBean
    public JiyiMemoryAdvisor jiyiMemoryAdvisor(Jiyi engine, JiyiProperties properties) {
        JiyiMemoryAdvisor.Builder b = JiyiMemoryAdvisor.builder(engine)
                .scope(properties.persona(), properties.project())
                .index(properties.index());
        JiyiProperties.Recall recall = properties.recall();
        if (recall.mode() != null) {
            b.mode(Refusals.refused(() -> RecallMode.parse("jiyi.recall.mode", recall.mode())));
        }
        if (recall.maxResults() != null) {
            b.maxResults(recall.maxResults());
        }
        JiyiProperties.Advisor advisor = properties.advisor();
        if (Boolean.TRUE.equals(advisor.pack())) {
            b.pack(advisor.budget() == null ? PackRequest.DEFAULT_BUDGET : advisor.budget(), advisor.model());
        }
        if (advisor.capture() != null) {
            b.capture(advisor.capture());
        }
        if (advisor.order() != null) {
            b.order(advisor.order());
        }
        return b.build();
    }
}
