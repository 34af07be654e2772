package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

class IdsTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("E1 host-supplied IDs accept any visible text up to the limit: CJK, emoji, punctuation")
    void validIds() {
        for (String id : List.of("a", "消息-001", "😀", "msg_01HZX:part/2#a", "x".repeat(Ids.MAX_ID_LENGTH),
                "😀".repeat(Ids.MAX_ID_LENGTH / 2))) {
            assertThat(Ids.check("id", id)).isEqualTo(id);
        }
    }

    @Test
    @DisplayName("E1 host-supplied IDs reject blank, over-long, whitespace and control characters without echoing them")
    void invalidIds() {
        assertInvalid(() -> Ids.check("id", null), "id");
        assertInvalid(() -> Ids.check("id", ""), "id");
        assertInvalid(() -> Ids.check("id", "y".repeat(Ids.MAX_ID_LENGTH + 1)), "id", "yyyyyyyy");
        for (String bad : List.of("has space", " lead", "trail ", "tab\tid", "new\nline", "全角　空格", "nbsp\u00A0id",
                "bell\u0007id", "del\u007Fid", "line\u2028sep")) {
            assertInvalid(() -> Ids.check("session", bad), "session", bad);
        }
    }

    @Test
    @DisplayName("M1 memory IDs are mem_ plus 26 Crockford base-32 characters and never collide")
    void memoryIdFormat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 5_000; i++) {
            String id = Ids.newMemoryId();
            assertThat(id).matches("mem_[0-9A-HJKMNP-TV-Z]{26}");
            assertThat(seen.add(id)).as("unique %s", id).isTrue();
        }
    }

    @Test
    @DisplayName("M1 memory IDs sort by creation time (seeded property over timestamps)")
    void memoryIdsSortByTime() {
        Random random = SeededRandom.create("M1 memory IDs sort by time");
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            millis.add(Math.abs(random.nextLong()) % (1L << 48));
        }
        millis.sort(null);
        String previous = null;
        long previousMillis = -1;
        for (long m : millis) {
            String id = Ids.ulid(m);
            assertThat(id).hasSize(26);
            if (previous != null && m > previousMillis) {
                assertThat(id.substring(0, 10)).isGreaterThan(previous.substring(0, 10));
            }
            previous = id;
            previousMillis = m;
        }
    }

    @Test
    @DisplayName("M1 memories created in order have increasing IDs and distinct IDs from the authority")
    void authorityMemoryIds() throws Exception {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e", ALICE_WORK, Role.USER, "我喜欢猫 I like cats"));
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ids.add(a.addMemory(ALICE_WORK, userFact(e, "likes cats " + i).build()).id());
                Thread.sleep(2);
            }
            assertThat(ids).doesNotHaveDuplicates().isSorted();
        }
    }
}
