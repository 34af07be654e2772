package dev.jiyi.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;

/**
 * The {@code jiyi.*} settings of a Spring Boot application.
 *
 * @param enabled whether the auto-configuration registers anything (true unless set)
 * @param home    the jiyi home (unset: {@code $JIYI_HOME}, else {@code $XDG_DATA_HOME/jiyi}, else
 *                {@code ~/.local/share/jiyi}, as the command line resolves it)
 * @param index   {@code fts5} or {@code lucene} for recall (unset: the home's {@code recall.index})
 * @param persona the persona memories are kept and recalled in ({@code default} unless set)
 * @param project the project memories are kept and recalled in ({@code default} unless set)
 * @param recall  how the advisor recalls
 * @param advisor what the advisor adds and captures
 */
@ConfigurationProperties("jiyi")
public record JiyiProperties(Boolean enabled, Path home, String index, String persona, String project, Recall recall,
                             Advisor advisor) {

    public JiyiProperties {
        recall = recall == null ? new Recall(null, null) : recall;
        advisor = advisor == null ? new Advisor(null, null, null, null, null) : advisor;
    }

    /**
     * @param mode       {@code fast} (the default), {@code semantic} or {@code deep}
     * @param maxResults memories added to a call (5 unless set)
     */
    public record Recall(String mode, Integer maxResults) {
    }

    /**
     * @param pack    add the conversation's context pack instead of the memories recalled for the message
     * @param budget  the pack's budget, in tokens of {@code model} (4,000 unless set)
     * @param model   the model the pack is counted for (UTF-8 bytes when unset)
     * @param capture capture every exchange (true unless set)
     * @param order   the advisor's order (just before Spring AI's chat memory advisors unless set)
     */
    public record Advisor(Boolean pack, Integer budget, String model, Boolean capture, Integer order) {
    }
}
