package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryReadTest {

    @TempDir
    Path dir;

    private static final int PAGE = 4_000;

    /** 10,000 Chinese characters, each position recognizable. */
    private static String chinese10k() {
        String cycle = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜";
        StringBuilder sb = new StringBuilder(10_000);
        for (int i = 0; sb.length() < 10_000; i++) {
            sb.append(cycle.charAt(i % cycle.length()));
        }
        return sb.toString();
    }

    @Test
    @DisplayName("M4 the default page size is 4,000 characters")
    void defaultPageSize() {
        assertThat(Authority.DEFAULT_PAGE_SIZE).isEqualTo(PAGE);
    }

    @Test
    @DisplayName("M4 a 10,000-character Chinese source pages as 4,000 + 4,000 + 2,000 with page numbers and total")
    void chineseTextPages() {
        String text = chinese10k();
        try (Authority a = open(dir)) {
            Event e = submit(a, event("long", ALICE_WORK, Role.USER, text));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "长文 long text").quote(text.substring(5_000, 5_010)).build());
            StringBuilder joined = new StringBuilder();
            int[] sizes = {4_000, 4_000, 2_000};
            for (int page = 1; page <= 3; page++) {
                MemoryView v = a.readMemory(ALICE_WORK, m.id(), page, Authority.DEFAULT_PAGE_SIZE);
                assertThat(v.page().page()).isEqualTo(page);
                assertThat(v.page().totalPages()).isEqualTo(3);
                assertThat(v.page().pageSize()).isEqualTo(PAGE);
                assertThat(v.page().totalCharacters()).isEqualTo(10_000);
                assertThat(v.page().text()).hasSize(sizes[page - 1]);
                assertThat(v.page().text()).isEqualTo(text.substring((page - 1) * PAGE, (page - 1) * PAGE + sizes[page - 1]));
                assertThat(v.memory()).isEqualTo(m);
                assertThat(v.source()).isEqualTo(e);
                joined.append(v.page().text());
            }
            assertThat(joined.toString()).isEqualTo(text);
            // Paging never alters what is stored.
            assertThat(a.event(ALICE_WORK, "long").orElseThrow().text()).isEqualTo(text);
            assertThat(a.readMemory(ALICE_WORK, m.id(), 1, PAGE).source().text()).isEqualTo(text);
            assertInvalid(() -> a.readMemory(ALICE_WORK, m.id(), 4, PAGE), "page");
        }
    }

    @Test
    @DisplayName("M4 a short English/Chinese source is one page; exactly 4,000 and 4,001 characters page as 1 and 2")
    void pageBoundaries() {
        try (Authority a = open(dir)) {
            Event shortEvent = submit(a, event("short", ALICE_WORK, Role.USER, "Short 短文本."));
            Memory m = a.addMemory(ALICE_WORK, userFact(shortEvent, "short").build());
            MemoryView v = a.readMemory(ALICE_WORK, m.id(), 1, PAGE);
            assertThat(v.page().totalPages()).isEqualTo(1);
            assertThat(v.page().text()).isEqualTo("Short 短文本.");
            assertThat(v.page().totalCharacters()).isEqualTo("Short 短文本.".length());

            Event exact = submit(a, event("exact", ALICE_WORK, Role.USER, "a".repeat(3_999) + "字"));
            Memory me = a.addMemory(ALICE_WORK, userFact(exact, "exact").quote("字").build());
            assertThat(a.readMemory(ALICE_WORK, me.id(), 1, PAGE).page().totalPages()).isEqualTo(1);

            Event over = submit(a, event("over", ALICE_WORK, Role.USER, "b".repeat(4_000) + "尾"));
            Memory mo = a.addMemory(ALICE_WORK, userFact(over, "over").quote("尾").build());
            MemoryView last = a.readMemory(ALICE_WORK, mo.id(), 2, PAGE);
            assertThat(last.page().totalPages()).isEqualTo(2);
            assertThat(last.page().text()).isEqualTo("尾");
        }
    }

    @Test
    @DisplayName("M4 pages of any size concatenate to the exact stored text, never splitting an emoji (seeded property)")
    void pagingProperty() {
        Random random = SeededRandom.create("M4 paging property");
        try (Authority a = open(dir)) {
            for (int i = 0; i < 40; i++) {
                String text = SeededRandom.mixedText(random, 3_000) + "😀终" + i;
                Event e = submit(a, event("p" + i, ALICE_WORK, Role.USER, text));
                Memory m = a.addMemory(ALICE_WORK, userFact(e, "m").quote("终" + i).build());
                int size = 2 + random.nextInt(random.nextBoolean() ? 50 : 5_000);
                MemoryView first = a.readMemory(ALICE_WORK, m.id(), 1, size);
                int total = first.page().totalPages();
                assertThat(total).isEqualTo(Math.max(1, (text.length() + size - 1) / size));
                StringBuilder joined = new StringBuilder();
                for (int page = 1; page <= total; page++) {
                    String part = a.readMemory(ALICE_WORK, m.id(), page, size).page().text();
                    assertThat(part.length()).isLessThanOrEqualTo(size + 1);
                    if (!part.isEmpty()) {
                        assertThat(Character.isLowSurrogate(part.charAt(0))).as("page %d starts mid-pair", page).isFalse();
                        assertThat(Character.isHighSurrogate(part.charAt(part.length() - 1)))
                                .as("page %d ends mid-pair", page).isFalse();
                    }
                    joined.append(part);
                }
                assertThat(joined.toString()).isEqualTo(text);
                assertThat(a.event(ALICE_WORK, e.id()).orElseThrow().text()).isEqualTo(text);
            }
        }
    }

    @Test
    @DisplayName("M4 memory read returns the memories co-derived from the same event, not itself nor others")
    void coDerivedMemories() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e", ALICE_WORK, Role.USER, "我喜欢猫，也喜欢狗。I like cats and dogs."));
            Event other = submit(a, event("o", ALICE_WORK, Role.USER, "我喜欢鱼 I like fish"));
            Memory cats = a.addMemory(ALICE_WORK, userFact(e, "likes cats 喜欢猫").quote("喜欢猫").build());
            Memory dogs = a.addMemory(ALICE_WORK, userFact(e, "likes dogs 喜欢狗").quote("喜欢狗").build());
            Memory both = a.addMemory(ALICE_WORK, MemoryDraft.builder("e").kind(Kind.OBSERVATION)
                    .basis(Basis.INFERENCE).text("animal lover").quote("cats and dogs").build());
            Memory fish = a.addMemory(ALICE_WORK, userFact(other, "likes fish").build());

            MemoryView v = a.readMemory(ALICE_WORK, cats.id(), 1, PAGE);
            assertThat(v.coDerived()).containsExactly(dogs, both);
            assertThat(a.readMemory(ALICE_WORK, dogs.id(), 1, PAGE).coDerived()).containsExactly(cats, both);
            assertThat(a.readMemory(ALICE_WORK, fish.id(), 1, PAGE).coDerived()).isEmpty();
            assertThat(v.relations()).isEmpty();
        }
    }

    @Test
    @DisplayName("M4 memory read returns the memory's relations in both directions")
    void relationsInView() {
        try (Authority a = open(dir)) {
            Event e1 = submit(a, event("e1", ALICE_WORK, Role.USER, "我在学日语 I'm learning Japanese"));
            Event e2 = submit(a, event("e2", ALICE_WORK, Role.USER, "下个月去东京 Tokyo next month"));
            Event e3 = submit(a, event("e3", ALICE_WORK, Role.USER, "买了相机 bought a camera"));
            Memory m1 = a.addMemory(ALICE_WORK, userFact(e1, "learning Japanese").build());
            Memory m2 = a.addMemory(ALICE_WORK, userFact(e2, "Tokyo trip").build());
            Memory m3 = a.addMemory(ALICE_WORK, userFact(e3, "camera").build());
            Relation r12 = a.relate(ALICE_WORK, m1.id(), m2.id());
            Relation r32 = a.relate(ALICE_WORK, m3.id(), m2.id());

            assertThat(a.readMemory(ALICE_WORK, m2.id(), 1, PAGE).relations()).containsExactlyInAnyOrder(r12, r32);
            assertThat(a.readMemory(ALICE_WORK, m1.id(), 1, PAGE).relations()).containsExactly(r12);
            assertThat(a.readMemory(ALICE_WORK, m3.id(), 1, PAGE).relations()).containsExactly(r32);
        }
    }

    @Test
    @DisplayName("O7 memory read rejects bad page numbers and sizes naming the field; unknown or foreign memories are not found")
    void badInput() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e", ALICE_WORK, Role.USER, "内容 content"));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "m").build());
            assertInvalid(() -> a.readMemory(ALICE_WORK, m.id(), 0, PAGE), "page");
            assertInvalid(() -> a.readMemory(ALICE_WORK, m.id(), -1, PAGE), "page");
            assertInvalid(() -> a.readMemory(ALICE_WORK, m.id(), 2, PAGE), "page");
            assertInvalid(() -> a.readMemory(ALICE_WORK, m.id(), 1, 0), "page_size");
            assertInvalid(() -> a.readMemory(ALICE_WORK, m.id(), 1, -4000), "page_size");
            assertThatThrownBy(() -> a.readMemory(ALICE_WORK, "mem_DOES_NOT_EXIST", 1, PAGE))
                    .isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.readMemory(ALICE_HOME, m.id(), 1, PAGE)).isInstanceOf(NotFoundException.class);
            assertThat(a.memory(ALICE_WORK, "mem_DOES_NOT_EXIST")).isEmpty();
            assertThat(a.memory(ALICE_HOME, m.id())).isEmpty();
            // Nothing changed by any of it.
            assertThat(a.readMemory(ALICE_WORK, m.id(), 1, PAGE).source().text()).isEqualTo("内容 content");
            assertThat(List.of(a.doctor().tableCounts().byName().get("memories"))).containsExactly(1L);
        }
    }
}
