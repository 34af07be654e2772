package dev.jiyi.bench.quality;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loaders for the public datasets in {@code ../shared/datasets/} (see its README), mapped onto jiyi
 * the way the recall issue prescribes.
 */
final class Datasets {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern DIA_ID = Pattern.compile("D\\d+:\\d+");
    private static final DateTimeFormatter LOCOMO_TIME = new DateTimeFormatterBuilder()
            .parseCaseInsensitive().appendPattern("h:mm a 'on' d MMMM, yyyy").toFormatter(Locale.ENGLISH);

    private Datasets() {
    }

    /** How LoCoMo's turns are kept: with a memory of their raw text, of their text after the speaker's name, or none. */
    enum Locomo {
        RAW_TEXT("locomo"), SPEAKER_NAMED("locomo-speaker"), EVENTS_ONLY("locomo-events");

        final String dataset;

        Locomo(String dataset) {
            this.dataset = dataset;
        }

        static Locomo of(String dataset) {
            return Arrays.stream(values()).filter(v -> v.dataset.equals(dataset)).findFirst().orElseThrow();
        }
    }

    /**
     * LoCoMo: each dialogue turn is one event (speaker A as user, B as assistant; an image's BLIP
     * caption appended as "[image: ...]"), hand-derived as one observation memory whose quote is the
     * turn and whose text is the turn itself ({@link Locomo#RAW_TEXT}: the held-out setting, raw
     * message text) or the turn prefixed with the speaker's name ({@link Locomo#SPEAKER_NAMED}), or
     * kept as events alone ({@link Locomo#EVENTS_ONLY}: a host that keeps its conversation and derives
     * nothing). Session times carry no zone and are read as UTC; each turn is one second after the
     * previous one. One persona per conversation.
     */
    static Scenario locomo(Path file, Locomo variant) throws IOException {
        JsonNode root = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
        List<Scenario.EventSpec> events = new ArrayList<>();
        List<Scenario.MemorySpec> memories = new ArrayList<>();
        List<Scenario.Question> questions = new ArrayList<>();
        Instant last = Instant.EPOCH;
        int skipped = 0;
        for (JsonNode sample : root) {
            String sampleId = sample.get("sample_id").asString();
            Scope scope = new Scope("locomo-" + sampleId, "locomo");
            JsonNode conv = sample.get("conversation");
            String speakerA = conv.get("speaker_a").asString();
            Set<String> turnIds = new LinkedHashSet<>();
            TreeMap<Integer, String> sessions = new TreeMap<>();
            for (String key : conv.propertyNames()) {
                Matcher m = Pattern.compile("session_(\\d+)").matcher(key);
                if (m.matches()) {
                    sessions.put(Integer.parseInt(m.group(1)), key);
                }
            }
            for (Map.Entry<Integer, String> s : sessions.entrySet()) {
                JsonNode when = conv.get(s.getValue() + "_date_time");
                Instant start = LocalDateTime.parse(when.asString().strip(), LOCOMO_TIME).toInstant(ZoneOffset.UTC);
                int i = 0;
                for (JsonNode turn : conv.get(s.getValue())) {
                    String diaId = turn.get("dia_id").asString();
                    String id = sampleId + ":" + diaId;
                    String text = turn.get("text").asString();
                    JsonNode caption = turn.get("blip_caption");
                    if (caption != null && !caption.isNull() && !caption.asString().isBlank()) {
                        text = text + " [image: " + caption.asString() + "]";
                    }
                    boolean user = turn.get("speaker").asString().equals(speakerA);
                    Instant at = start.plusSeconds(i++);
                    last = at.isAfter(last) ? at : last;
                    events.add(new Scenario.EventSpec(id, scope, user ? Role.USER : Role.ASSISTANT, text,
                            "session_" + s.getKey(), at));
                    if (variant != Locomo.EVENTS_ONLY) {
                        memories.add(new Scenario.MemorySpec(id, scope, Kind.OBSERVATION,
                                user ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION,
                                variant == Locomo.SPEAKER_NAMED ? turn.get("speaker").asString() + ": " + text : text, text));
                    }
                    turnIds.add(diaId);
                }
            }
            int q = 0;
            for (JsonNode qa : sample.get("qa")) {
                q++;
                Set<String> gold = new LinkedHashSet<>();
                JsonNode evidence = qa.get("evidence");
                if (evidence != null) {
                    for (JsonNode e : evidence) {
                        Matcher m = DIA_ID.matcher(e.asString());
                        while (m.find()) {
                            if (turnIds.contains(m.group())) {
                                gold.add(sampleId + ":" + m.group());
                            }
                        }
                    }
                }
                if (gold.isEmpty()) {
                    skipped++;
                    continue;
                }
                questions.add(new Scenario.Question(sampleId + "#" + q, scope, qa.get("question").asString(), gold,
                        "category-" + qa.get("category").asString()));
            }
        }
        return new Scenario(variant.dataset, events, memories, questions, last.plus(Duration.ofDays(1)), skipped);
    }

    /**
     * MADial-Bench: each memory is one event (its "event" text, at its date, from the user) and one
     * episode memory with the same text. The query is the dialogue before its first test turn, without
     * the {@code <BOD>} marker; the gold items are the relevant memories of the same user. The English
     * memory file has no user IDs; they are taken from the Chinese file (same memory IDs).
     */
    static Scenario madial(Path dir, String language, boolean withTestTurn) throws IOException {
        String lang = language.equals("zh") ? "ch" : "en";
        String prefix = language.equals("zh") ? "zh" : "en";
        Path data = dir.resolve("data");
        Map<String, Integer> users = new HashMap<>();
        for (String line : Files.readAllLines(data.resolve("ch").resolve("MADial-Bench-zh-memory.json"))) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode node = JSON.readTree(line);
            for (String id : node.propertyNames()) {
                users.put(id, node.get(id).get("user-id").asInt());
            }
        }
        List<Scenario.EventSpec> events = new ArrayList<>();
        List<Scenario.MemorySpec> memories = new ArrayList<>();
        Instant last = Instant.EPOCH;
        for (String line : Files.readAllLines(data.resolve(lang).resolve("MADial-Bench-" + prefix + "-memory.json"))) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode node = JSON.readTree(line);
            for (String id : node.propertyNames()) {
                JsonNode m = node.get(id);
                Scope scope = new Scope("madial-user-" + users.get(id), "madial-" + language);
                Instant at = LocalDate.parse(m.get("time").asString().strip()).atStartOfDay().toInstant(ZoneOffset.UTC);
                last = at.isAfter(last) ? at : last;
                String text = m.get("event").asString();
                String eventId = "madial-" + language + "-" + id;
                events.add(new Scenario.EventSpec(eventId, scope, Role.USER, text, "memory-" + id, at));
                memories.add(new Scenario.MemorySpec(eventId, scope, Kind.EPISODE, Basis.USER_STATEMENT, text, text));
            }
        }
        List<Scenario.Question> questions = new ArrayList<>();
        int number = 0;
        for (String line : Files.readAllLines(data.resolve(lang).resolve("MADial-Bench-" + prefix + "-dialogue.json"))) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode d = JSON.readTree(line);
            int testTurn = d.get("test-turn").get(0).asInt();
            StringBuilder query = new StringBuilder();
            List<String> turns = new ArrayList<>();
            JsonNode dialogue = d.get("dialogue");
            int end = withTestTurn ? testTurn + 1 : testTurn;
            for (int i = 0; i < end && i < dialogue.size(); i++) {
                String u = dialogue.get(i).asString().replace("<BOD>", "").replace("<EOD>", "").strip();
                if (!u.isEmpty()) {
                    query.append(u).append('\n');
                    turns.add(u);
                }
            }
            Set<String> gold = new LinkedHashSet<>();
            for (JsonNode r : d.get("relevant-id")) {
                gold.add("madial-" + language + "-" + r.asString());
            }
            Scope scope = new Scope("madial-user-" + d.get("user-id").asInt(), "madial-" + language);
            questions.add(new Scenario.Question("dialogue-" + number++, scope, query.toString(), gold,
                    "all", turns));
        }
        return new Scenario("madial-" + language + (withTestTurn ? "" : "-history"), events, memories, questions, last.plus(Duration.ofDays(1)), 0);
    }
}
