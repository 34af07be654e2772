package dev.jiyi.authority;

import java.util.List;

/** What a host reports for a checkpoint; validated here, checked against events on save. */
public record CheckpointDraft(
        String sessionId,
        String goal,
        List<String> done,
        List<String> pending,
        List<String> constraints,
        String nextAction,
        long coveredSequence) {

    public CheckpointDraft {
        Ids.check("session", sessionId);
        Limits.requireText("goal", goal, Limits.MAX_CHECKPOINT_TEXT);
        done = items("done", done);
        pending = items("pending", pending);
        constraints = items("constraints", constraints);
        Limits.optionalText("next", nextAction, Limits.MAX_CHECKPOINT_TEXT);
        if (coveredSequence < 1) {
            throw new InvalidInputException("covered_seq", "must be a positive event sequence");
        }
    }

    private static List<String> items(String field, List<String> values) {
        List<String> list = values == null ? List.of() : values;
        if (list.size() > Limits.MAX_CHECKPOINT_ITEMS) {
            throw new InvalidInputException(field, "must have at most " + Limits.MAX_CHECKPOINT_ITEMS + " items");
        }
        for (int i = 0; i < list.size(); i++) {
            Limits.requireText(field + "[" + i + "]", list.get(i), Limits.MAX_CHECKPOINT_TEXT);
        }
        return List.copyOf(list);
    }
}
