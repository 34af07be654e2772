package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PersonaTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("S3 reading an absent persona initializes and returns a neutral default as version 1")
    void absentPersonaStartsNeutral() throws Exception {
        try (Authority a = open(dir)) {
            Persona p = a.persona("新人设", null);
            assertThat(p.personaId()).isEqualTo("新人设");
            assertThat(p.version()).isEqualTo(1);
            assertThat(p.content()).isEqualTo(Authority.NEUTRAL_PERSONA);
            assertThat(p.createdAt()).isNotNull();

            // Reading again returns the same stored version, nothing new is appended.
            assertThat(a.persona("新人设", null)).isEqualTo(p);
            assertThat(a.persona("新人设", 1)).isEqualTo(p);
            assertThat(a.personaHistory("新人设")).containsExactly(p);
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM personas WHERE persona_id = '新人设'")).isEqualTo(1);
    }

    @Test
    @DisplayName("S3 the neutral default survives reopening the database as the same version 1")
    void neutralDefaultIsPersisted() {
        Persona first;
        try (Authority a = open(dir)) {
            first = a.persona("p", null);
        }
        try (Authority a = open(dir)) {
            assertThat(a.persona("p", null)).isEqualTo(first);
            assertThat(a.personaHistory("p")).hasSize(1);
        }
    }

    @Test
    @DisplayName("S2 an edit appends version n+1 and older versions are untouched")
    void editAppends() {
        try (Authority a = open(dir)) {
            Persona v1 = a.persona("alice", null);
            Persona v2 = a.editPersona("alice", "You are warm and concise. 说话温和、简洁。");
            Persona v3 = a.editPersona("alice", "  Mixed 中英 text with\ttabs,\nnewlines and emoji 😀  ");

            assertThat(v2.version()).isEqualTo(2);
            assertThat(v3.version()).isEqualTo(3);
            assertThat(v3.content()).isEqualTo("  Mixed 中英 text with\ttabs,\nnewlines and emoji 😀  ");
            assertThat(a.persona("alice", null)).isEqualTo(v3);
            assertThat(a.persona("alice", 1)).isEqualTo(v1);
            assertThat(a.persona("alice", 2)).isEqualTo(v2);
            assertThat(a.personaHistory("alice")).containsExactly(v1, v2, v3);
        }
    }

    @Test
    @DisplayName("S2 an edit with unchanged content still appends a new version")
    void identicalEditStillAppends() {
        try (Authority a = open(dir)) {
            a.editPersona("p", "同样的内容 same content");
            Persona again = a.editPersona("p", "同样的内容 same content");
            assertThat(again.version()).isEqualTo(3);
            assertThat(a.personaHistory("p")).extracting(Persona::version).containsExactly(1, 2, 3);
        }
    }

    @Test
    @DisplayName("S2 editing a persona never read before keeps a neutral version 1 and appends version 2")
    void editOfAbsentPersona() {
        try (Authority a = open(dir)) {
            Persona edited = a.editPersona("fresh", "第一版 first edit");
            assertThat(edited.version()).isEqualTo(2);
            List<Persona> history = a.personaHistory("fresh");
            assertThat(history).extracting(Persona::version).containsExactly(1, 2);
            assertThat(history.get(0).content()).isEqualTo(Authority.NEUTRAL_PERSONA);
            assertThat(history.get(1).content()).isEqualTo("第一版 first edit");
        }
    }

    @Test
    @DisplayName("S2 persona versions are immutable rows: content and creation time never change")
    void versionsImmutableProperty() {
        Random random = SeededRandom.create("S2 persona versions are immutable");
        try (Authority a = open(dir)) {
            List<Persona> written = new ArrayList<>();
            written.add(a.persona("prop", null));
            for (int i = 0; i < 25; i++) {
                if (random.nextInt(4) == 0 && written.size() > 1) {
                    int k = 1 + random.nextInt(written.size());
                    written.add(a.rollbackPersona("prop", k));
                } else {
                    String text = SeededRandom.mixedText(random, 60) + "人设" + i;
                    written.add(a.editPersona("prop", text));
                }
            }
            assertThat(a.personaHistory("prop")).containsExactlyElementsOf(written);
            for (int i = 0; i < written.size(); i++) {
                assertThat(written.get(i).version()).isEqualTo(i + 1);
            }
        }
    }

    @Test
    @DisplayName("S4 rollback to version k appends a new version whose content equals k")
    void rollbackAppends() {
        try (Authority a = open(dir)) {
            Persona v1 = a.persona("alice", null);
            Persona v2 = a.editPersona("alice", "版本二 version two");
            Persona v3 = a.editPersona("alice", "版本三 version three");

            Persona v4 = a.rollbackPersona("alice", 2);
            assertThat(v4.version()).isEqualTo(4);
            assertThat(v4.content()).isEqualTo(v2.content());
            assertThat(a.persona("alice", null)).isEqualTo(v4);

            Persona v5 = a.rollbackPersona("alice", 1);
            assertThat(v5.version()).isEqualTo(5);
            assertThat(v5.content()).isEqualTo(Authority.NEUTRAL_PERSONA);

            // History is never erased.
            assertThat(a.personaHistory("alice")).containsExactly(v1, v2, v3, v4, v5);
        }
    }

    @Test
    @DisplayName("S4 rollback to a version that does not exist is refused and appends nothing")
    void rollbackToMissingVersion() throws Exception {
        try (Authority a = open(dir)) {
            a.editPersona("alice", "v2");
            assertThatThrownBy(() -> a.rollbackPersona("alice", 7)).isInstanceOf(NotFoundException.class);
            assertInvalid(() -> a.rollbackPersona("alice", 0), "to");
            assertInvalid(() -> a.rollbackPersona("alice", -3), "to");
            assertThat(a.personaHistory("alice")).hasSize(2);
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM personas")).isEqualTo(2);
    }

    @Test
    @DisplayName("S5 a persona's versions span all of its projects")
    void personaSpansProjects() throws Exception {
        try (Authority a = open(dir)) {
            // Events in two projects of the same persona.
            a.submitEvent(AuthorityTestKit.event("e-work", AuthorityTestKit.ALICE_WORK, Role.USER, "工作 work"));
            a.submitEvent(AuthorityTestKit.event("e-home", AuthorityTestKit.ALICE_HOME, Role.USER, "家 home"));
            Persona edited = a.editPersona("alice", "one persona for every project 所有项目共用");
            // The persona API takes no project: the same version is what every project of alice sees.
            assertThat(a.persona(AuthorityTestKit.ALICE_WORK.personaId(), null)).isEqualTo(edited);
            assertThat(a.persona(AuthorityTestKit.ALICE_HOME.personaId(), null)).isEqualTo(edited);
            // Another persona is independent.
            assertThat(a.persona("bob", null).version()).isEqualTo(1);
            assertThat(a.personaHistory("alice")).hasSize(2);
        }
        // Stored once per (persona, version), not per project.
        assertThat(count(dbFile(dir), "SELECT count(*) FROM personas WHERE persona_id = 'alice'")).isEqualTo(2);
        assertThat(AuthorityTestKit.strings(dbFile(dir), "SELECT name FROM pragma_table_info('personas')"))
                .doesNotContain("project_id");
    }

    @Test
    @DisplayName("S2 concurrent editors on the same file never lose or duplicate a version")
    void concurrentEditors() throws Exception {
        try (Authority init = open(dir)) {
            init.persona("shared", null);
        }
        int writers = 4;
        int editsEach = 10;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int id = w;
                futures.add(pool.submit(() -> {
                    try (Authority a = open(dir)) {
                        for (int i = 0; i < editsEach; i++) {
                            a.editPersona("shared", "writer " + id + " edit " + i + " 编辑");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Authority a = open(dir)) {
            List<Persona> history = a.personaHistory("shared");
            assertThat(history).hasSize(1 + writers * editsEach);
            for (int i = 0; i < history.size(); i++) {
                assertThat(history.get(i).version()).isEqualTo(i + 1);
            }
        }
    }

    @Test
    @DisplayName("O7 persona methods reject bad input naming the field, never echoing the value")
    void badInput() throws Exception {
        try (Authority a = open(dir)) {
            assertInvalid(() -> a.persona("bad persona 坏", null), "persona", "bad persona 坏");
            assertInvalid(() -> a.persona("", null), "persona");
            assertInvalid(() -> a.persona(null, null), "persona");
            assertInvalid(() -> a.personaHistory("tab\there"), "persona", "tab\there");
            assertInvalid(() -> a.editPersona("bad persona 坏", "内容"), "persona", "bad persona 坏");
            assertInvalid(() -> a.editPersona("ok", "   \n\t　"), "text");
            assertInvalid(() -> a.editPersona("ok", null), "text");
            String huge = "秘密".repeat(Limits.MAX_PERSONA_TEXT);
            assertInvalid(() -> a.editPersona("ok", huge), "text", "秘密秘密");
            assertInvalid(() -> a.editPersona("ok", "secret\u0000value"), "text", "secret");
            assertInvalid(() -> a.rollbackPersona("bad persona 坏", 1), "persona", "bad persona 坏");
            assertThatThrownBy(() -> a.persona("ok", 99)).isInstanceOf(NotFoundException.class);
        }
        // Nothing was stored for the rejected calls (persona("ok", 99) initializes "ok" by reading it).
        assertThat(count(dbFile(dir), "SELECT count(*) FROM personas WHERE persona_id <> 'ok'")).isZero();
        assertThat(count(dbFile(dir), "SELECT count(*) FROM personas WHERE persona_id = 'ok'")).isLessThanOrEqualTo(1);
    }
}
