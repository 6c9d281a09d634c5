package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Test tool: a running SHA-256 over everything one seeded simulation does on its network (every
 * packet sent, with its bytes, its fate and the arrival time of each copy; every packet handed to
 * an endpoint), plus, for {@link GroupHarness} runs, the end state of every member and client.
 * Installed for the current thread by {@link SimulationDigestTest}; absent otherwise, when the
 * simulations pay one null check per packet. Two builds that give the same digests for a seed sent
 * the same packets in the same order at the same simulated times.
 */
final class TraceDigest
{
    private static final ThreadLocal<TraceDigest> CURRENT = new ThreadLocal<>();

    private final MessageDigest trace = sha256();
    private final ByteBuffer scratch = ByteBuffer.allocate(64);
    private final List<GroupHarness> harnesses = new ArrayList<>();
    long packetsSent;
    long packetsHandled;

    /** @return the digest installed for this thread, or null. */
    static TraceDigest current()
    {
        return CURRENT.get();
    }

    static TraceDigest install()
    {
        final TraceDigest digest = new TraceDigest();
        CURRENT.set(digest);
        return digest;
    }

    static void uninstall()
    {
        CURRENT.remove();
    }

    /** A harness made while a digest is installed: its end state goes into {@link #endState}. */
    static void harnessCreated(final GroupHarness harness)
    {
        final TraceDigest digest = CURRENT.get();
        if (digest != null)
        {
            digest.harnesses.add(harness);
        }
    }

    /** One transmission: {@code arrivalsNs} holds one time per copy queued (none when dropped). */
    void sent(final long nowNs, final int from, final int to, final byte[] bytes, final long[] arrivalsNs)
    {
        packetsSent++;
        scratch.clear();
        scratch.put((byte)'S').putLong(nowNs).putInt(from).putInt(to).putInt(bytes.length).putInt(arrivalsNs.length);
        trace.update(scratch.flip());
        trace.update(bytes);
        for (final long at : arrivalsNs)
        {
            scratch.clear();
            scratch.putLong(at);
            trace.update(scratch.flip());
        }
    }

    /** One packet handed to its endpoint (or lost because the endpoint is gone: {@code handled} false). */
    void handled(final long nowNs, final long serial, final int from, final int to, final boolean handled)
    {
        packetsHandled++;
        scratch.clear();
        scratch.put((byte)'D').putLong(nowNs).putLong(serial).putInt(from).putInt(to).put((byte)(handled ? 1 : 0));
        trace.update(scratch.flip());
    }

    String traceHex()
    {
        return HexFormat.of().formatHex(trace.digest());
    }

    /** Every harness's members (state, view, deliveries, counters) and clients (views, replies, counters), or "-" for none. */
    String endState()
    {
        if (harnesses.isEmpty())
        {
            return "-";
        }
        final StringBuilder sb = new StringBuilder();
        for (final GroupHarness h : harnesses)
        {
            for (final GroupHarness.Member m : h.members.values())
            {
                final MemberEngine e = m.engine;
                sb.append("member ").append(m.id).append(' ').append(m.alive).append(' ').append(m.cutOff).append(' ')
                    .append(e.state()).append(' ').append(e.leaderId()).append(' ').append(java.util.Arrays.toString(e.currentMembers()))
                    .append(' ').append(e.deliveredSeq()).append(' ').append(e.pendingReplies()).append(' ').append(e.heldReplyPieces())
                    .append(' ').append(e.retainedOrders()).append(' ').append(e.duplicateFilterSize()).append(' ').append(e.heldForFifo())
                    .append(' ').append(e.nextDeadlineNs()).append(' ').append(e.wakesForRequests()).append(' ').append(m.jumps)
                    .append(' ').append(e.counters()).append('\n');
                for (final Map.Entry<Long, String> d : m.delivered.entrySet())
                {
                    sb.append(d.getKey()).append('=').append(d.getValue()).append('\n');
                }
            }
            for (final GroupHarness.Client c : h.clients.values())
            {
                sb.append("client ").append(c.id).append(' ').append(c.sent).append(' ').append(c.views).append(' ')
                    .append(c.cancelled).append(' ').append(c.replies).append(' ').append(c.engine.counters()).append('\n');
            }
        }
        return HexFormat.of().formatHex(sha256().digest(sb.toString().getBytes(StandardCharsets.UTF_8)));
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException(e);
        }
    }
}
