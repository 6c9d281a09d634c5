package org.lightwire.romiop.engine.nemesis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated replica's application: the requests it executed, each with its order number, in
 * execution order. That list is its whole state, so a state transfer hands the joiner the donor's
 * list, and the checker can hold every installed state against the one order.
 */
final class ReplicaLog
{
    record Entry(long orderSeq, String request)
    {
    }

    private final List<Entry> entries = new ArrayList<>();

    void executed(final long orderSeq, final String request)
    {
        entries.add(new Entry(orderSeq, request));
    }

    /** @return the state: one line "orderSeq request" per entry. */
    byte[] image()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Entry e : entries)
        {
            sb.append(e.orderSeq()).append(' ').append(e.request()).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Replaces the state by an {@link #image}. */
    List<Entry> install(final byte[] image)
    {
        entries.clear();
        for (final String line : new String(image, StandardCharsets.US_ASCII).split("\n"))
        {
            if (!line.isEmpty())
            {
                final int space = line.indexOf(' ');
                entries.add(new Entry(Long.parseLong(line.substring(0, space)), line.substring(space + 1)));
            }
        }
        return List.copyOf(entries);
    }
}
