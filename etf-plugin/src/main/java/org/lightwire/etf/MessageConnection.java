package org.lightwire.etf;

import org.lightwire.etf.giop.FragmentJoiner;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.InboundMessages;
import org.omg.ETF.BufferHolder;

/**
 * What every Lightwire and ROMIOP ETF connection shares: JacORB writes a GIOP message in one to
 * three {@link #write}s and ends it with {@link #flush} (the only message boundary, see
 * {@code docs/notes/jacorb-etf.md} section 3); the bytes are collected here, fragments are joined
 * ({@link FragmentJoiner}), and each whole message goes to {@link #onMessage} on the flushing
 * thread. Whole messages for JacORB's reader are queued in {@link #inbound}, which presents them
 * as the byte stream {@link #read} must deliver. No transport of ours carries bidirectional GIOP,
 * and none uses JacORB's socket timeout.
 */
public abstract class MessageConnection extends org.jacorb.orb.etf.ConnectionBase
{
    /** Whole messages for JacORB's reader. */
    protected final InboundMessages inbound = new InboundMessages();
    private final FragmentJoiner joiner = new FragmentJoiner();
    private final Object outLock = new Object();
    private byte[] outBuffer = new byte[1024];
    private int outLength;
    /**
     * The message being written when its GIOP header announced its size: each message gets an
     * array of exactly its size, written once and handed on by flush() without a copy (the
     * transport keeps it until the call ends, so it cannot be a reused buffer).
     */
    private byte[] exact;
    private int timeoutMs;

    @Override
    public final void write(final boolean isFirst, final boolean isLast, final byte[] data, final int offset, final int length,
        final long timeOut)
    {
        synchronized (outLock)
        {
            if (outLength == 0 && exact == null)
            {
                exact = exactArrayFor(data, offset, length);
            }
            if (exact != null)
            {
                if (outLength + length <= exact.length)
                {
                    System.arraycopy(data, offset, exact, outLength, length);
                    outLength += length;
                    return;
                }
                // More than the header announced: go on in the growing buffer, which flush copies.
                ensureOutBuffer(outLength);
                System.arraycopy(exact, 0, outBuffer, 0, outLength);
                exact = null;
            }
            ensureOutBuffer(outLength + length);
            System.arraycopy(data, offset, outBuffer, outLength, length);
            outLength += length;
        }
    }

    @Override
    public final void flush()
    {
        final byte[] message;
        synchronized (outLock)
        {
            if (outLength == 0)
            {
                return;
            }
            final byte[] flushed;
            if (exact != null && outLength == exact.length)
            {
                // The message was written straight into an array of its own size: no copy.
                flushed = exact;
            }
            else
            {
                if (exact != null)
                {
                    ensureOutBuffer(outLength);
                    System.arraycopy(exact, 0, outBuffer, 0, outLength);
                }
                flushed = new byte[outLength];
                System.arraycopy(outBuffer, 0, flushed, 0, outLength);
            }
            exact = null;
            outLength = 0;
            message = joiner.offer(flushed);
        }
        if (message != null)
        {
            onMessage(message);
        }
    }

    /** @return the largest message a header may announce before it gets an array of its size. */
    protected int maxMessageBytes()
    {
        return Integer.MAX_VALUE - 64;
    }

    /**
     * @return an array of the whole message's size when {@code data} starts with a sane GIOP
     *     header (JacORB announces the size there), else null.
     */
    private byte[] exactArrayFor(final byte[] data, final int offset, final int length)
    {
        if (length < GiopMessage.HEADER_LENGTH)
        {
            return null;
        }
        final byte[] header = java.util.Arrays.copyOfRange(data, offset, offset + GiopMessage.HEADER_LENGTH);
        if (!GiopMessage.isGiop(header, header.length))
        {
            return null;
        }
        final long total = GiopMessage.HEADER_LENGTH + (GiopMessage.bodySize(header) & 0xFFFF_FFFFL);
        return total >= length && total <= maxMessageBytes() ? new byte[(int)total] : null;
    }

    private void ensureOutBuffer(final int bytes)
    {
        if (outBuffer.length < bytes)
        {
            final byte[] bigger = new byte[Math.max(outBuffer.length * 2, bytes)];
            System.arraycopy(outBuffer, 0, bigger, 0, outLength);
            outBuffer = bigger;
        }
    }

    /** One whole GIOP message JacORB flushed (fragments joined), on the flushing thread. */
    protected abstract void onMessage(byte[] message);

    /** Forgets a partly written message and any fragments: for a (re)connect. */
    protected final void clearOutgoing()
    {
        synchronized (outLock)
        {
            outLength = 0;
            exact = null;
            joiner.clear();
        }
    }

    @Override
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        return inbound.read(data.value, offset, minLength, maxLength);
    }

    @Override
    public boolean is_data_available()
    {
        return inbound.hasData();
    }

    /** No Lightwire transport carries requests from server to client. */
    @Override
    public boolean supports_callback()
    {
        return false;
    }

    @Override
    protected final synchronized void setTimeout(final int timeout)
    {
        timeoutMs = timeout;
    }

    @Override
    protected final synchronized int getTimeout()
    {
        return timeoutMs;
    }
}
