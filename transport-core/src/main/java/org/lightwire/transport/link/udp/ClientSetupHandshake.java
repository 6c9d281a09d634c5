package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.lightwire.transport.protocol.CloseCause;

/**
 * The client half of the UDP set-up exchange as a pure state machine: it does no I/O and reads
 * no clock. Its driver ({@link AbstractUdpClientLink}) sends the CONNECT it writes, feeds it
 * every valid set-up body that arrives ({@link #onSetup}) and calls {@link #onTimer} at
 * {@link #nextDeadlineNs()}.
 *
 * <p>CONNECT is retransmitted at {@code setupRetryNs}, then at twice the previous interval,
 * until an ACCEPT or a REFUSE echoing the nonce arrives or {@code connectTimeoutNs} has passed
 * since the first CONNECT. A RETRY echoing the nonce carries the server's cookie: the next
 * CONNECT, sent at once, echoes it, and the retransmission interval starts again. The set-up
 * round-trip time is measured only when the answered CONNECT was the only one sent with its
 * cookie (Karn's rule: with retransmissions the ACCEPT cannot be matched to a send).
 */
public final class ClientSetupHandshake
{
    /** States of the exchange. */
    public enum State
    {
        IDLE,
        CONNECTING,
        ACCEPTED,
        REFUSED,
        TIMED_OUT
    }

    /** What the driver must do after {@link #onTimer}. */
    public enum Action
    {
        NONE,
        RETRANSMIT,
        TIMED_OUT
    }

    /** What a set-up body meant to the exchange. */
    public enum Outcome
    {
        /** The ACCEPT of this attempt: the connection is open. */
        ACCEPTED,
        /** A RETRY with a new cookie: the driver sends the CONNECT again at once. */
        RETRY,
        /** The REFUSE of this attempt: the server will not open the connection ({@link #refusal()}). */
        REFUSED,
        /** An answer that is not (or no longer) the one awaited: a duplicate or a stray. */
        STRAY_ACCEPT,
        /** A CONNECT or REJECT: nothing to do with this exchange. */
        IGNORED
    }

    private final long nonce;
    private final int maxPacketBytes;
    private final long connectTimeoutNs;
    private final long setupRetryNs;
    private final SetupFlyweight setup = new SetupFlyweight();
    private final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight();

    private State state = State.IDLE;
    private long firstSendNs;
    private long lastSendNs;
    private long giveUpDeadlineNs;
    private long retryDeadlineNs;
    private long retryIntervalNs;
    private int connectsSent;
    /** CONNECTs sent with the current cookie (or none), and when the first of them went. */
    private int connectsThisCookie;
    private long cookieSentNs;
    private long connectionId;
    private int negotiatedMaxPacketBytes;
    private int idleSeconds;
    private long setupRttNs = -1;
    private byte[] cookie;
    private CloseCause refusal;

    /**
     * @param nonce nonzero random nonce of this connect attempt.
     * @param maxPacketBytes largest packet, header included, this client accepts.
     * @param connectTimeoutNs how long after the first CONNECT to give up.
     * @param setupRetryNs the first retransmission interval.
     */
    public ClientSetupHandshake(final long nonce, final int maxPacketBytes, final long connectTimeoutNs, final long setupRetryNs)
    {
        if (nonce == 0)
        {
            throw new IllegalArgumentException("nonce must be nonzero");
        }
        this.nonce = nonce;
        this.maxPacketBytes = maxPacketBytes;
        this.connectTimeoutNs = connectTimeoutNs;
        this.setupRetryNs = setupRetryNs;
    }

    /** Starts the exchange: the driver sends the first CONNECT at {@code nowNs}. */
    public void start(final long nowNs)
    {
        if (state != State.IDLE)
        {
            throw new IllegalStateException("handshake already started, state " + state);
        }
        firstSendNs = nowNs;
        lastSendNs = nowNs;
        giveUpDeadlineNs = nowNs + connectTimeoutNs;
        retryIntervalNs = setupRetryNs;
        retryDeadlineNs = nowNs + retryIntervalNs;
        connectsSent = 1;
        connectsThisCookie = 1;
        cookieSentNs = nowNs;
        transitionTo(State.CONNECTING);
    }

    /**
     * Writes a whole CONNECT datagram (zero prefix and body) at {@code offset}, with the cookie
     * of the last RETRY, if one came.
     *
     * @return its length, {@link SetupFlyweight#DATAGRAM_LENGTH}.
     */
    public int writeConnect(final ByteBuffer buffer, final int offset)
    {
        prefix.wrap(buffer, offset).connectionId(UdpPrefixFlyweight.SETUP_CONNECTION_ID);
        setup.wrap(buffer, offset + UdpPrefixFlyweight.HEADER_LENGTH)
            .set(SetupFlyweight.Kind.CONNECT, maxPacketBytes, null, 0, 0L, nonce, cookie);
        return SetupFlyweight.DATAGRAM_LENGTH;
    }

    /** Time passes: retransmit CONNECT, give up, or nothing yet. */
    public Action onTimer(final long nowNs)
    {
        switch (state)
        {
            case CONNECTING:
                if (giveUpDeadlineNs - nowNs <= 0)
                {
                    transitionTo(State.TIMED_OUT);
                    return Action.TIMED_OUT;
                }
                if (retryDeadlineNs - nowNs <= 0)
                {
                    connectsSent++;
                    connectsThisCookie++;
                    lastSendNs = nowNs;
                    // Doubling, capped so that a long timeout never overflows the interval.
                    retryIntervalNs = Math.min(retryIntervalNs * 2, connectTimeoutNs);
                    retryDeadlineNs = nowNs + retryIntervalNs;
                    return Action.RETRANSMIT;
                }
                return Action.NONE;
            case TIMED_OUT:
                return Action.TIMED_OUT;
            default:
                return Action.NONE;
        }
    }

    /**
     * A valid set-up body arrived (the driver ran {@link SetupFlyweight#validate} first).
     *
     * @param setup the body, validated.
     */
    public Outcome onSetup(final SetupFlyweight setup, final long nowNs)
    {
        final SetupFlyweight.Kind kind = setup.kind();
        if (kind == SetupFlyweight.Kind.CONNECT || kind == SetupFlyweight.Kind.REJECT)
        {
            return Outcome.IGNORED;
        }
        if (state != State.CONNECTING || setup.nonce() != nonce)
        {
            return Outcome.STRAY_ACCEPT;
        }
        switch (kind)
        {
            case RETRY:
                final byte[] issued = new byte[SetupFlyweight.COOKIE_LENGTH];
                setup.cookie(issued, 0);
                if (Arrays.equals(issued, cookie))
                {
                    // A duplicate of the RETRY already answered.
                    return Outcome.STRAY_ACCEPT;
                }
                cookie = issued;
                connectsSent++;
                connectsThisCookie = 1;
                cookieSentNs = nowNs;
                lastSendNs = nowNs;
                retryIntervalNs = setupRetryNs;
                retryDeadlineNs = nowNs + retryIntervalNs;
                return Outcome.RETRY;
            case REFUSE:
                refusal = setup.reason();
                transitionTo(State.REFUSED);
                return Outcome.REFUSED;
            default:
                connectionId = setup.connectionId();
                negotiatedMaxPacketBytes = Math.min(maxPacketBytes, setup.maxPacketBytes());
                idleSeconds = setup.idleSeconds();
                setupRttNs = connectsThisCookie == 1 ? nowNs - cookieSentNs : -1;
                transitionTo(State.ACCEPTED);
                return Outcome.ACCEPTED;
        }
    }

    /** @return when {@link #onTimer} must next run (absolute, compare wrap-safely). */
    public long nextDeadlineNs()
    {
        return retryDeadlineNs - giveUpDeadlineNs < 0 ? retryDeadlineNs : giveUpDeadlineNs;
    }

    public State state()
    {
        return state;
    }

    public long nonce()
    {
        return nonce;
    }

    public int connectsSent()
    {
        return connectsSent;
    }

    public long firstSendNs()
    {
        return firstSendNs;
    }

    public long lastSendNs()
    {
        return lastSendNs;
    }

    /** @return the id from the ACCEPT, valid in state ACCEPTED. */
    public long connectionId()
    {
        return connectionId;
    }

    /** @return min(this side's, the server's max packet bytes), valid in state ACCEPTED. */
    public int negotiatedMaxPacketBytes()
    {
        return negotiatedMaxPacketBytes;
    }

    /** @return the idle timeout the server announced in its ACCEPT, in seconds; 0 for none. */
    public int idleSeconds()
    {
        return idleSeconds;
    }

    /** @return why the server refused, valid in state REFUSED. */
    public CloseCause refusal()
    {
        return refusal;
    }

    /** @return true once a RETRY's cookie was taken. */
    public boolean hasCookie()
    {
        return cookie != null;
    }

    /** @return the set-up RTT, or -1 when CONNECT was retransmitted (Karn's rule). */
    public long setupRttNs()
    {
        return setupRttNs;
    }

    private void transitionTo(final State next)
    {
        state = next;
    }

    @Override
    public String toString()
    {
        return "ClientSetupHandshake{state=" + state +
            ", nonce=" + UdpPrefixFlyweight.formatId(nonce) +
            ", maxPacketBytes=" + maxPacketBytes +
            ", connectsSent=" + connectsSent +
            ", retryIntervalNs=" + retryIntervalNs +
            ", connectionId=" + UdpPrefixFlyweight.formatId(connectionId) +
            ", negotiatedMaxPacketBytes=" + negotiatedMaxPacketBytes +
            ", setupRttNs=" + setupRttNs + '}';
    }
}
