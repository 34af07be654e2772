package dev.jiyi.bench;

import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A deterministic stream of synthetic chat events for ingestion benchmarks: texts of 20 to 200
 * characters (about 127 on average), each drawn in one style: Chinese sentences (40 percent),
 * English sentences (30 percent) or a mix of Chinese, English and code-switched fragments (30
 * percent); alternating user and assistant turns, 50 turns per session, one turn every 37 seconds
 * from 2024-05-01T09:00+08:00. The same seed gives the same events, so runs compare like with like.
 */
public final class ChatCorpus {

    /** The seed used when none is given; benchmarks print the seed they used. */
    public static final long DEFAULT_SEED = 20240501L;

    /** Shortest and longest text, in characters (UTF-16 code units, as {@code Limits} counts). */
    public static final int MIN_LENGTH = 20;
    public static final int MAX_LENGTH = 200;

    /** Turns per session before the corpus starts a new one. */
    public static final int TURNS_PER_SESSION = 50;

    private static final OffsetDateTime START = OffsetDateTime.of(2024, 5, 1, 9, 0, 0, 0, ZoneOffset.ofHours(8));
    private static final Duration TURN_GAP = Duration.ofSeconds(37);

    private static final List<String> CHINESE = List.of(
            "我明天早上九点要去北京大学参加一个学术研讨会。",
            "周末打算和家人一起去西湖边散步，顺便尝尝龙井虾仁。",
            "最近睡眠不太好，晚上经常两三点才睡着。",
            "我对花生过敏，点外卖的时候请提醒我看配料表。",
            "上个月刚搬到上海浦东，通勤时间缩短了半个小时。",
            "女儿下周三过生日，想给她买一套乐高积木。",
            "我更喜欢喝不加糖的绿茶，咖啡喝多了会心慌。",
            "今天项目评审被推迟了，领导说需求还要再改一轮。",
            "帮我记一下：车险在六月十五号到期，要提前续保。",
            "我在学日语，每天晚上背三十个单词。",
            "这周的健身计划是跑步三次，每次五公里。",
            "老家在四川成都，过年一般会回去待一个星期。",
            "我的猫叫团子，是一只三岁的英国短毛猫。",
            "下午开会的时候，同事提到预算可能要削减百分之十。",
            "好的，我已经记住了，下次推荐餐厅时会避开辣的菜。",
            "根据你之前说的，你的护照有效期到二零二六年三月。",
            "这个问题可以分成三步：先确认数据，再检查索引，最后重建缓存。",
            "我理解你的担心，我们可以先把方案拆小一点再试。",
            "昨天和老朋友吃火锅，聊到大学时候一起熬夜写论文。",
            "记得提醒我每周五下午给妈妈打电话。",
            "我不太习惯用语音输入，还是打字比较快。",
            "房租每个月八号交，别忘了。",
            "这本书讲的是明朝的历史，写得很有意思。",
            "天气预报说后天有大雨，出门记得带伞。");

    private static final List<String> ENGLISH = List.of(
            "I have a dentist appointment on Thursday at 3 pm. ",
            "Please remember that I prefer window seats on long flights. ",
            "My manager asked me to finish the quarterly report by Friday. ",
            "We moved the team offsite to the second week of June. ",
            "I'm trying to cut down on sugar, so no dessert suggestions please. ",
            "The build broke again after the dependency upgrade. ",
            "Sure, I'll keep that in mind for next time. ",
            "Based on what you said earlier, your lease ends in September. ",
            "Let's split the migration into three smaller pull requests. ",
            "I usually go for a run along the river before work. ",
            "My sister is visiting from Toronto next weekend. ",
            "Could you summarize the main points from yesterday's meeting? ",
            "I switched to a standing desk and my back feels better. ",
            "The restaurant we liked closed down last month, sadly. ",
            "That makes sense; the index can always be rebuilt from the database. ",
            "I don't drink alcohol, so skip the wine pairing. ",
            "Remind me to renew my library books before the 20th. ",
            "Our kid starts kindergarten in September. ",
            "I'd rather have short answers unless I ask for details. ",
            "The flight lands at 6:40 in the morning, local time. ");

    private static final List<String> MIXED = List.of(
            "今天的 stand-up 讲了 sprint 进度，",
            "这个 PR 需要再加几个 unit test，",
            "我用的是 MacBook Pro，内存是 32GB。",
            "deadline 改到下周一了，",
            "刚把 Kubernetes 集群升级到 1.30，",
            "周五晚上约了 Alice 去看 IMAX 电影。",
            "我的 GitHub 用户名和微信号是一样的。",
            "记得在 Notion 里更新一下 roadmap，",
            "Python 的虚拟环境又坏了，只好重装。",
            "老板说 Q3 的 OKR 要重新对齐，",
            "我比较喜欢 dark mode，眼睛舒服一点。",
            "下载的 PDF 打不开，可能是文件损坏了。",
            "We can 先跑一遍 benchmark 再决定，",
            "The SQLite 数据库文件大概有 2GB，",
            "jiyi 的 recall 结果里应该有这条记忆，",
            "明天 10:30 有个 Zoom meeting，");

    private final long seed;
    private final String runId;
    private final SplittableRandom random;
    private long next;

    /**
     * A corpus whose event IDs are {@code bench-RUNID-N}; a run ID keeps IDs unique when several
     * streams write to one database.
     */
    public ChatCorpus(long seed, String runId) {
        this.seed = seed;
        this.runId = runId;
        this.random = new SplittableRandom(seed);
    }

    public long seed() {
        return seed;
    }

    /** How many events this corpus has produced. */
    public long produced() {
        return next;
    }

    /** The next event, in the default scope. */
    public EventSubmission nextEvent() {
        long n = next++;
        String text = text(random);
        Role role = n % 2 == 0 ? Role.USER : Role.ASSISTANT;
        String session = "session-" + runId + "-" + (n / TURNS_PER_SESSION);
        Instant occurred = START.plus(TURN_GAP.multipliedBy(n)).toInstant();
        return new EventSubmission("bench-" + runId + "-" + n, Scope.DEFAULT, role, text, "bench", null, session,
                occurred);
    }

    /** The next {@code count} events. */
    public List<EventSubmission> nextEvents(int count) {
        List<EventSubmission> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            events.add(nextEvent());
        }
        return events;
    }

    /** One {@code event submit --batch} line for {@code e} (the public line format). */
    public static String jsonLine(EventSubmission e) {
        Map<String, String> line = new LinkedHashMap<>();
        line.put("id", e.id());
        line.put("role", e.role().code());
        line.put("text", e.text());
        line.put("session", e.sessionId());
        line.put("occurred_at", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(e.occurredAt().atOffset(ZoneOffset.ofHours(8))));
        line.put("source", e.source());
        return JSON.writeValueAsString(line);
    }

    private static final tools.jackson.databind.json.JsonMapper JSON =
            tools.jackson.databind.json.JsonMapper.builder().build();

    /** A text of {@link #MIN_LENGTH}..{@link #MAX_LENGTH} characters in one of the three styles. */
    static String text(SplittableRandom random) {
        int target = MIN_LENGTH + random.nextInt(MAX_LENGTH - MIN_LENGTH + 1);
        int style = random.nextInt(10);
        StringBuilder sb = new StringBuilder(MAX_LENGTH + 64);
        // One character past the target, so that stripping a trailing space keeps the minimum.
        while (sb.length() <= target) {
            List<String> pool = style < 4 ? CHINESE
                    : style < 7 ? ENGLISH
                    : switch (random.nextInt(3)) {
                        case 0 -> CHINESE;
                        case 1 -> ENGLISH;
                        default -> MIXED;
                    };
            sb.append(pool.get(random.nextInt(pool.size())));
        }
        String text = sb.length() > MAX_LENGTH ? sb.substring(0, MAX_LENGTH) : sb.toString();
        return text.strip();
    }
}
