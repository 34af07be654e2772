package dev.jiyi.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link SideBySide}: display widths, wrapping and the two columns of {@code jiyi probe}. */
class ProbeLayoutTest {

    @Test
    @DisplayName("CJK, full-width forms and emoji take two columns; combining marks and joiners none")
    void widths() {
        assertThat(SideBySide.width("abc")).isEqualTo(3);
        assertThat(SideBySide.width("记忆")).isEqualTo(4);
        assertThat(SideBySide.width("，。！？")).isEqualTo(8);
        assertThat(SideBySide.width("ＡＢ")).isEqualTo(4);
        assertThat(SideBySide.width("😅")).isEqualTo(2);
        assertThat(SideBySide.width("𠀀")).isEqualTo(2); // CJK extension B, outside the BMP
        assertThat(SideBySide.width("한국어")).isEqualTo(6);
        assertThat(SideBySide.width("かな")).isEqualTo(4);
        assertThat(SideBySide.width("e\u0301")).isEqualTo(1);
        assertThat(SideBySide.width("a\u200Db")).isEqualTo(2);
        assertThat(SideBySide.width("today 今天 deploy")).isEqualTo(17);
    }

    @Test
    @DisplayName("Chinese breaks between characters, English at spaces, and a word longer than the column is cut")
    void wrap() {
        assertThat(SideBySide.wrap("我叫小明住在杭州", 6)).containsExactly("我叫小", "明住在", "杭州");
        assertThat(SideBySide.wrap("I prefer tea over coffee", 10)).containsExactly("I prefer", "tea over", "coffee");
        assertThat(SideBySide.wrap("今天deploy了v2.3", 8)).containsExactly("今天", "deploy了", "v2.3");
        assertThat(SideBySide.wrap("abcdefghij", 4)).containsExactly("abcd", "efgh", "ij");
        assertThat(SideBySide.wrap("第一段\n\n第二段", 20)).containsExactly("第一段", "", "第二段");
        assertThat(SideBySide.wrap("  indented first line", 40)).containsExactly("  indented first line");
        assertThatThrownBy(() -> SideBySide.wrap("x", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a Chinese comma or full stop never starts a line: the character before it moves down with it")
    void noLineStartsWithPunctuation() {
        assertThat(SideBySide.wrap("我住在杭州。", 10)).containsExactly("我住在杭", "州。");
        assertThat(SideBySide.wrap("你好，小明", 4)).containsExactly("你", "好，", "小明");
    }

    @Test
    @DisplayName("control characters are neutralised: no escape sequence reaches the terminal; tabs and CR become spaces and LF")
    void printable() {
        assertThat(SideBySide.printable("a\u001B[31mred\u0007\r\nb\tc\u0085"))
                .isEqualTo("a\uFFFD[31mred\uFFFD\nb    c\uFFFD");
    }

    @Test
    @DisplayName("property: every wrapped line fits, no character but spaces at breaks is lost, rows align (seeded)")
    void property() {
        long seed = Long.getLong("jiyi.test.seed", System.nanoTime());
        System.out.println("ProbeLayoutTest.property seed " + seed);
        Random random = new Random(seed);
        String[] pieces = {"记", "忆", "杭州", "，", "。", "😅", " ", " ", "tea", "coffee", "deploy", "v2.3", "\n",
                "e\u0301", "Ｖ", "supercalifragilisticexpialidocious", "한", "：", "(", ")"};
        for (int round = 0; round < 2000; round++) {
            StringBuilder sb = new StringBuilder();
            int n = random.nextInt(40);
            for (int i = 0; i < n; i++) {
                sb.append(pieces[random.nextInt(pieces.length)]);
            }
            String text = sb.toString();
            int columns = 2 + random.nextInt(30);
            List<String> lines = SideBySide.wrap(text, columns);
            String context = "seed " + seed + " round " + round + " columns " + columns;
            for (String line : lines) {
                assertThat(SideBySide.width(line)).as(context).isLessThanOrEqualTo(columns);
            }
            assertThat(String.join("", lines).replace(" ", "")).as(context)
                    .isEqualTo(text.replace(" ", "").replace("\n", ""));
            List<String> rows = SideBySide.rows(lines, SideBySide.wrap(text, columns), columns);
            for (String row : rows) {
                String left = row.substring(0, row.lastIndexOf(SideBySide.GAP.strip()) - 1);
                assertThat(SideBySide.width(left)).as(context).isEqualTo(columns);
            }
        }
    }

    @Test
    @DisplayName("rows: the left side is padded by display width, the shorter side filled with blank lines")
    void rows() {
        List<String> rows = SideBySide.rows(List.of("你好", "杭州"), List.of("hello"), 6);
        assertThat(rows).containsExactly("你好   | hello", "杭州   |");
    }
}
