package dev.jiyi.authority;

/** A one-hop {@code related} link seen from {@code fromRow}: its neighbour is {@code toRow}. */
public record RelatedLink(long fromRow, long toRow) {
}
