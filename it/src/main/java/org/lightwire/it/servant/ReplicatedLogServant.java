package org.lightwire.it.servant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.lightwire.it.idl.lwtest.replicated_logPOA;

/**
 * One replica's execution log: every call appends (client, seq) and feeds the same bytes to a
 * running SHA-256, so replicas compare whole histories by digest. It also records the client of
 * each call in execution order (bounded by {@code maxEntries}; calls beyond it are still counted
 * and digested), so a test can compare execution order with the plug-in's delivery order.
 */
public final class ReplicatedLogServant extends replicated_logPOA
{
    private final MessageDigest digest;
    private final int[] clients;
    private final int[] seqs;
    private long executed;
    private long inOrder;
    private long lastExecutionNs;
    /** The highest seq seen per client (clients are few: a small map). */
    private final java.util.Map<Integer, Integer> lastSeq = new java.util.HashMap<>();
    private volatile long replyOffset;
    private volatile long replyDelayMs;
    private volatile long onewayDelayMs;

    public ReplicatedLogServant(final int maxEntries)
    {
        try
        {
            digest = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        clients = new int[maxEntries];
        seqs = new int[maxEntries];
    }

    /**
     * Makes this replica misbehave, for the consolidation tests: a faulty replica answers
     * {@code offset} more than it should; a late one answers {@code delayMs} late; a slow one
     * takes {@code onewayDelayMs} over each oneway. The execution log is unchanged either way.
     */
    public void misbehave(final long offset, final long delayMs, final long onewayDelayMs)
    {
        replyOffset = offset;
        replyDelayMs = delayMs;
        this.onewayDelayMs = onewayDelayMs;
    }

    @Override
    public long append(final int client, final int seq)
    {
        final long length;
        synchronized (this)
        {
            length = record(client, seq);
        }
        pause(replyDelayMs);
        return length + replyOffset;
    }

    @Override
    public void append_oneway(final int client, final int seq)
    {
        synchronized (this)
        {
            record(client, seq);
        }
        pause(onewayDelayMs);
    }

    private static void pause(final long ms)
    {
        if (ms > 0)
        {
            try
            {
                Thread.sleep(ms);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public long append_data(final int client, final int seq, final char[] data)
    {
        final long length;
        synchronized (this)
        {
            length = record(client, seq, data.length);
        }
        pause(replyDelayMs);
        return length + replyOffset;
    }

    @Override
    public void append_data_oneway(final int client, final int seq, final char[] data)
    {
        synchronized (this)
        {
            record(client, seq, data.length);
        }
        pause(onewayDelayMs);
    }

    @Override
    public char[] append_and_return(final int client, final int seq, final int length)
    {
        synchronized (this)
        {
            record(client, seq);
        }
        pause(replyDelayMs);
        return TtcpPattern.create(seq, length);
    }

    @Override
    public long append_checked(final int client, final int seq, final char[] data)
    {
        final boolean intact = TtcpPattern.verify(data) == seq;
        synchronized (this)
        {
            return record(client, seq, checkedLine(data.length, intact));
        }
    }

    /** @return the end of an {@code append_checked} call's line in the digested log: its data's length and whether it was intact. */
    public static String checkedLine(final int length, final boolean intact)
    {
        return ":" + length + (intact ? ":intact" : ":corrupt");
    }

    /** @return one line of the digested log (a test computes the digest it expects from these). */
    public static String line(final int client, final int seq, final String rest)
    {
        return client + ":" + seq + rest + "\n";
    }

    private long record(final int client, final int seq)
    {
        return record(client, seq, -1);
    }

    /** @param dataLength a payload's length, or -1 without one (then the line is as before payloads existed). */
    private long record(final int client, final int seq, final int dataLength)
    {
        return record(client, seq, dataLength < 0 ? "" : ":" + dataLength);
    }

    private long record(final int client, final int seq, final String rest)
    {
        digest.update(line(client, seq, rest).getBytes(StandardCharsets.US_ASCII));
        final Integer before = lastSeq.put(client, seq);
        if (before == null || seq > before)
        {
            inOrder++;
        }
        else
        {
            lastSeq.put(client, before);
        }
        lastExecutionNs = System.nanoTime();
        if (executed < clients.length)
        {
            clients[(int)executed] = client;
            seqs[(int)executed] = seq;
        }
        return ++executed;
    }

    public synchronized long executed()
    {
        return executed;
    }

    /** @return the digest of everything so far (the running digest goes on). */
    public synchronized String digest()
    {
        try
        {
            return HexFormat.of().formatHex(((MessageDigest)digest.clone()).digest());
        }
        catch (final CloneNotSupportedException e)
        {
            throw new IllegalStateException("SHA-256 digest cannot be cloned", e);
        }
    }

    public synchronized int[] executionClients()
    {
        return java.util.Arrays.copyOf(clients, (int)Math.min(executed, clients.length));
    }

    /** @return the seq of each executed call, in execution order (the first {@code maxEntries}). */
    public synchronized int[] executionSeqs()
    {
        return java.util.Arrays.copyOf(seqs, (int)Math.min(executed, seqs.length));
    }

    /** @return calls whose seq was above every earlier seq of the same client. */
    public synchronized long inOrder()
    {
        return inOrder;
    }

    /** @return System.nanoTime() at the last executed call, or 0 before the first. */
    public synchronized long lastExecutionNs()
    {
        return lastExecutionNs;
    }
}
