package org.lightwire.it.servant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.lightwire.it.idl.lwtest.checkpointable_logHelper;
import org.lightwire.it.idl.lwtest.checkpointable_logPOA;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.romiop.ft.InvalidState;
import org.lightwire.romiop.ft.NoStateAvailable;

/**
 * One replica's execution log: every call appends (client, seq) and feeds the same bytes to a
 * running SHA-256, so replicas compare whole histories by digest. It also records the client of
 * each call in execution order (bounded by {@code maxEntries}; calls beyond it are still counted
 * and digested), so a test can compare execution order with the plug-in's delivery order.
 *
 * <p>Its state ({@code LightwireFT::Checkpointable}) is the log's text, every line that went into
 * the digest (US-ASCII, {@link #line}): {@code set_state} replays those lines into an empty log,
 * so a replica that took another's state has its log, digest, counts and replies. The text is
 * kept up to {@value #MAX_STATE_BYTES} bytes (by default); a longer log has no state to give. To serve a
 * group without state transfer, activate it behind {@code replicated_logPOATie}: its ORB then
 * answers {@code get_state} with BAD_OPERATION.
 */
public final class ReplicatedLogServant extends checkpointable_logPOA
{
    /** The longest log text kept for {@code get_state}, by default. */
    public static final int MAX_STATE_BYTES = 32 << 20;

    private final int maxStateBytes;
    private MessageDigest digest;
    private final int[] clients;
    private final int[] seqs;
    /** The log's text while it is at most {@link #maxStateBytes} long; null after. */
    private java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    private long installed;
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
        this(maxEntries, MAX_STATE_BYTES);
    }

    /** @param maxStateBytes the longest log text kept for {@code get_state}. */
    public ReplicatedLogServant(final int maxEntries, final int maxStateBytes)
    {
        this.maxStateBytes = maxStateBytes;
        digest = newDigest();
        clients = new int[maxEntries];
        seqs = new int[maxEntries];
    }

    private static MessageDigest newDigest()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /**
     * Published as a {@code replicated_log} first: a client narrowing its group reference to one
     * then needs no {@code _is_a} call, which a group orders and every member answers as any
     * other request (the tests that time calls or make members misbehave count on that); the
     * servant still answers {@code _is_a} for {@code checkpointable_log} and {@code Checkpointable}.
     */
    @Override
    public String[] _all_interfaces(final org.omg.PortableServer.POA poa, final byte[] objectId)
    {
        return new String[] {replicated_logHelper.id(), checkpointable_logHelper.id(), org.lightwire.romiop.ft.CheckpointableHelper.id()};
    }

    /** @return every line of the log, as digested. */
    @Override
    public synchronized byte[] get_state() throws NoStateAvailable
    {
        if (text == null)
        {
            throw new NoStateAvailable("the log is longer than the " + maxStateBytes + " bytes kept");
        }
        return text.toByteArray();
    }

    /** Replaces the log by the lines of {@code state} (from another replica's {@link #get_state}), as if it had executed them. */
    @Override
    public synchronized void set_state(final byte[] state) throws InvalidState
    {
        final java.util.List<Line> lines = parse(state);
        digest = newDigest();
        text = new java.io.ByteArrayOutputStream(state.length);
        executed = 0;
        inOrder = 0;
        lastSeq.clear();
        for (final Line l : lines)
        {
            record(l.client(), l.seq(), l.rest());
        }
        installed = lines.size();
    }

    /** One line of the log: {@code client:seq} and the rest ({@code ""}, {@code :length} or {@code :length:intact}). */
    private record Line(int client, int seq, String rest)
    {
    }

    private static final java.util.regex.Pattern LINE = java.util.regex.Pattern.compile("(-?\\d{1,10}):(-?\\d{1,10})((?::[^:\n]+)*)\n");

    /** @return each line's client, seq and rest; the state is refused whole if one line is not a log line. */
    private static java.util.List<Line> parse(final byte[] state) throws InvalidState
    {
        final String all = new String(state, StandardCharsets.US_ASCII);
        final java.util.List<Line> lines = new java.util.ArrayList<>();
        final java.util.regex.Matcher m = LINE.matcher(all);
        int at = 0;
        while (at < all.length())
        {
            m.region(at, all.length());
            if (!m.lookingAt())
            {
                throw new InvalidState("not a log line at byte " + at);
            }
            try
            {
                lines.add(new Line(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), m.group(3)));
            }
            catch (final NumberFormatException e)
            {
                throw new InvalidState("not a log line at byte " + at + ": " + e.getMessage());
            }
            at = m.end();
        }
        return lines;
    }

    /** @return entries that came with the last state this log took ({@link #set_state}), 0 when it took none. */
    public synchronized long installed()
    {
        return installed;
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
        final byte[] line = line(client, seq, rest).getBytes(StandardCharsets.US_ASCII);
        digest.update(line);
        if (text != null && text.size() + line.length <= maxStateBytes)
        {
            text.write(line, 0, line.length);
        }
        else
        {
            text = null;
        }
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
