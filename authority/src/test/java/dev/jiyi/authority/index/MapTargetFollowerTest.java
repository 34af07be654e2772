package dev.jiyi.authority.index;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Snapshot;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * L2: {@link ChangeLogFollowerContract} over the simplest target there is, a set of IDs read from
 * the rows the entries name: the contract holds of the protocol itself, whatever the store.
 */
class MapTargetFollowerTest extends ChangeLogFollowerContract {

    /** Holds "e:ID" and "m:ID" of the rows it was told of and found. */
    static final class SetTarget implements ChangeLogFollower.Target {
        final Set<String> held = new HashSet<>();
        ChangeLogFollower.Position position = ChangeLogFollower.Position.START;

        @Override
        public ChangeLogFollower.Position position() {
            return position;
        }

        @Override
        public void apply(Snapshot s, List<ChangeLog.Entry> page) {
            for (ChangeLog.Entry e : page) {
                switch (e.entity()) {
                    case EVENT -> {
                        held.remove("e:" + e.entityId());
                        s.eventsById(List.of(e.entityId())).forEach(ev -> held.add("e:" + ev.id()));
                    }
                    case MEMORY -> {
                        held.remove("m:" + e.entityId());
                        s.memoriesById(List.of(e.entityId())).forEach(m -> held.add("m:" + m.id()));
                    }
                    default -> {
                        // nothing else is held
                    }
                }
            }
        }

        @Override
        public void commit(ChangeLogFollower.Position reached) {
            position = reached;
        }

        @Override
        public void rebuild(Snapshot s, String reason) {
            held.clear();
            for (List<Event> p = s.eventsAfter(0, 100); !p.isEmpty(); p = s.eventsAfter(p.getLast().sequence(), 100)) {
                p.forEach(e -> held.add("e:" + e.id()));
            }
            for (List<Memory> p = s.memoriesAfter(0, 100); !p.isEmpty(); p = s.memoriesAfter(p.getLast().rowId(), 100)) {
                p.forEach(m -> held.add("m:" + m.id()));
            }
            position = ChangeLogFollower.head(s);
        }
    }

    @Override
    protected ChangeLogFollower.Target target(Path dir, Authority authority) {
        return new SetTarget();
    }

    @Override
    protected boolean holds(ChangeLogFollower.Target target, boolean event, String id) {
        return ((SetTarget) target).held.contains((event ? "e:" : "m:") + id);
    }
}
