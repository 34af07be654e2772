package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.internal.Indexes;
import dev.jiyi.authority.internal.Transactions;

import java.io.InputStream;
import java.nio.file.Path;

/**
 * The authority's archive verbs (O3-O5): export, import, backup and restore, each serialized with
 * every other verb of its {@link Authority} ({@link Authority#archives()}).
 */
public final class Archives {

    private final Authority authority;
    private final Sql sql;
    private final Transactions tx;
    private final Indexes indexes;

    /** For {@link Authority} only. */
    public Archives(Authority authority, Sql sql, Transactions tx, Indexes indexes) {
        this.authority = authority;
        this.sql = sql;
        this.tx = tx;
        this.indexes = indexes;
    }

    /** O3: an archive of the whole database (scope null) or one scope, from one snapshot, in a new file. */
    public ArchiveReport export(Path target, ArchiveFormat format, Scope scope, PhaseProgress progress) {
        synchronized (authority) {
            return tx.read("exporting an archive", () -> ArchiveWriter.write(sql, target, format, scope, progress));
        }
    }

    /** O4: imports an archive into this empty database in one transaction, checked whole, then indexed. */
    public ArchiveReport importFrom(InputStream in, PhaseProgress progress) {
        synchronized (authority) {
            indexes.prepare();
            return tx.write("importing an archive", () -> {
                ArchiveReport read = ArchiveImport.run(sql, in, progress);
                progress.begin("import: indexing", read.rows().indexed());
                indexes.rebuildAll(progress::advance);
                return read;
            });
        }
    }

    /** O5: a consistent copy of the database in a new file ({@link Backups}); refuses an existing one. */
    public Backup backup(Path target) {
        synchronized (authority) {
            return Backups.backup(sql.connection(), target);
        }
    }

    /** O5: a backup file into this empty database, through an import's checks ({@link Restores}). */
    public ArchiveReport restore(Path backup, PhaseProgress progress) {
        synchronized (authority) {
            return Restores.restore(backup, sql, this, progress);
        }
    }
}
