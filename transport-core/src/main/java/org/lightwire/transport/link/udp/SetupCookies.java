package org.lightwire.transport.link.udp;

import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server's stateless proof that a client receives datagrams at the address it sends from
 * (the RETRY of the set-up exchange; DTLS's HelloVerifyRequest and QUIC's Retry do the same). A
 * cookie is the second at which it was issued (CARD32, counted from the server's start) and the
 * first 20 bytes of an HMAC-SHA256, under a random secret the server draws at start and never
 * sends, over that second, the client's IP address and port and the CONNECT's nonce. A CONNECT
 * that echoes a cookie issued for its address, port and nonce no more than {@link #LIFETIME_NS}
 * ago opens a connection; any other CONNECT is answered with a new cookie and costs the server
 * no state.
 *
 * <p>Not thread-safe: one receive thread issues and checks cookies.
 */
final class SetupCookies
{
    /** How long a cookie is valid after it was issued. */
    static final long LIFETIME_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int TIME_BYTES = 4;
    private static final int MAC_BYTES = SetupFlyweight.COOKIE_LENGTH - TIME_BYTES;
    private static final SecureRandom SECRETS = new SecureRandom();

    private final Mac mac;
    private final long epochNs;
    private final byte[] input = new byte[TIME_BYTES + 16 + 2 + 8];
    private final byte[] expected = new byte[SetupFlyweight.COOKIE_LENGTH];

    /** @param nowNs the clock now: cookie times count seconds from here. */
    SetupCookies(final long nowNs)
    {
        final byte[] secret = new byte[32];
        SECRETS.nextBytes(secret);
        try
        {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("this JVM offers no HmacSHA256, which every Java SE platform must", ex);
        }
        this.epochNs = nowNs;
    }

    /** @return a new cookie for a CONNECT with {@code nonce} from {@code client}, 24 bytes. */
    byte[] issue(final InetSocketAddress client, final long nonce, final long nowNs)
    {
        final byte[] cookie = new byte[SetupFlyweight.COOKIE_LENGTH];
        write(cookie, secondsAt(nowNs), client, nonce);
        return cookie;
    }

    /**
     * @param cookie the 24 bytes a CONNECT echoed.
     * @return true when the cookie was issued by this server for {@code client} and
     *     {@code nonce} no more than {@link #LIFETIME_NS} ago.
     */
    boolean verify(final byte[] cookie, final InetSocketAddress client, final long nonce, final long nowNs)
    {
        final long issued = ((cookie[0] & 0xFFL) << 24) | ((cookie[1] & 0xFFL) << 16) | ((cookie[2] & 0xFFL) << 8) | (cookie[3] & 0xFFL);
        final long ageS = secondsAt(nowNs) - issued;
        // A cookie from the future (a forgery, or another incarnation's) is as bad as an old one.
        if (ageS < 0 || ageS > TimeUnit.NANOSECONDS.toSeconds(LIFETIME_NS))
        {
            return false;
        }
        write(expected, issued, client, nonce);
        return MessageDigest.isEqual(expected, cookie);
    }

    private long secondsAt(final long nowNs)
    {
        return TimeUnit.NANOSECONDS.toSeconds(nowNs - epochNs) & 0xFFFF_FFFFL;
    }

    private void write(final byte[] cookie, final long seconds, final InetSocketAddress client, final long nonce)
    {
        cookie[0] = (byte)(seconds >>> 24);
        cookie[1] = (byte)(seconds >>> 16);
        cookie[2] = (byte)(seconds >>> 8);
        cookie[3] = (byte)seconds;
        System.arraycopy(cookie, 0, input, 0, TIME_BYTES);
        final byte[] ip = client.getAddress().getAddress();
        int at = TIME_BYTES;
        for (int i = 0; i < 16; i++)
        {
            // IPv4 in the last four bytes, zeros before: one input length for both families.
            input[at++] = i < 16 - ip.length ? 0 : ip[i - (16 - ip.length)];
        }
        input[at++] = (byte)(client.getPort() >>> 8);
        input[at++] = (byte)client.getPort();
        for (int i = 7; i >= 0; i--)
        {
            input[at++] = (byte)(nonce >>> (8 * i));
        }
        final byte[] digest = mac.doFinal(input);
        System.arraycopy(digest, 0, cookie, TIME_BYTES, MAC_BYTES);
    }
}
