package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.*;

import static org.assertj.core.api.Assertions.assertThat;

/** FTS5 b-tree keys are byte prefixes: a key cut inside a UTF-8 character must still be recognized as a trace. */
class Fts5CjkKeyTraceTest {

    @TempDir
    Path dir;

    private final Scope scope = new Scope("alice", "diary");
    private static final Instant T = Instant.parse("2024-05-01T02:00:00Z");

    private static boolean validUtf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    private static boolean startsWith(byte[] a, byte[] p) {
        if (a.length < p.length) return false;
        for (int i = 0; i < p.length; i++) if (a[i] != p[i]) return false;
        return true;
    }

    @Test
    @DisplayName("D1 a deleted Chinese term whose leaf key ends inside a UTF-8 character leaves no key in *_fts_idx")
    void deletedCjkTermLeavesMidCharacterKey() throws SQLException {
        Fts5Index index = new Fts5Index();
        Random rnd = new Random(7);
        Map<String, Integer> termCount = new HashMap<>();
        Map<String, String> eventOfTerm = new HashMap<>();
        Path db = dir.resolve("jiyi.db");
        try (Authority a = Authority.open(db, List.of(index))) {
            List<EventSubmission> batch = new ArrayList<>();
            for (int i = 0; i < 6000; i++) {
                StringBuilder w = new StringBuilder();
                for (int k = 0; k < 4; k++) {
                    w.append((char) (0x4E00 + rnd.nextInt(6000)));
                }
                String text = "diary " + w;
                for (String t : new HashSet<>(ChineseTokens.terms(text))) {
                    String stored = Fts5Terms.key(scope) + t; // as FTS5 stores it, behind the scope's key
                    termCount.merge(stored, 1, Integer::sum);
                    eventOfTerm.put(stored, "e" + i);
                }
                batch.add(new EventSubmission("e" + i, scope, Role.USER, text, null, null, "s", T));
            }
            assertThat(a.submitEvents(batch).error()).isNull();

            List<byte[]> allTerms = new ArrayList<>();
            for (String t : termCount.keySet()) allTerms.add(t.getBytes(StandardCharsets.UTF_8));

            byte[] key = null;
            String victim = null;
            int midKeys = 0;
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT term FROM events_fts_idx")) {
                while (rs.next()) {
                    byte[] b = rs.getBytes(1);
                    if (b == null || b.length < 3) continue;
                    byte[] k = Arrays.copyOfRange(b, 1, b.length);
                    if (validUtf8(k)) continue;
                    midKeys++;
                    List<String> sharing = new ArrayList<>();
                    for (String t : termCount.keySet()) {
                        if (startsWith(t.getBytes(StandardCharsets.UTF_8), k)) sharing.add(t);
                    }
                    if (key == null && sharing.size() == 1 && termCount.get(sharing.get(0)) == 1) {
                        key = k;
                        victim = sharing.get(0);
                    }
                }
            }
            assertThat(victim).as("a mid-character leaf key that only one private term shares").isNotNull();

            a.deleteEvent(scope, eventOfTerm.get(victim));

            int left = 0;
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT term FROM events_fts_idx")) {
                while (rs.next()) {
                    byte[] b = rs.getBytes(1);
                    if (b != null && b.length > 0 && Arrays.equals(Arrays.copyOfRange(b, 1, b.length), key)) left++;
                }
            }
            assertThat(left).as("events_fts_idx still holds %s (bytes of the deleted term %s, cut inside a character)",
                    HexFormat.of().formatHex(key), victim).isZero();
        }
    }
}
