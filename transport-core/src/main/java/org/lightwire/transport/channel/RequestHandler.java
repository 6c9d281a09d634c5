package org.lightwire.transport.channel;

/**
 * The server application: given each request as it arrives whole, in the order of its
 * connection's calls.
 */
@FunctionalInterface
public interface RequestHandler
{
    /**
     * @param call the request; an exactly-once call must be answered with {@link ServerCall#reply}
     *             exactly once, from this thread or any other.
     */
    void onRequest(ServerCall call);

    /**
     * The connection named {@code connection} (as {@link ServerCall#connection()} names it) is
     * closed: idle too long, a zombie, or the server stopped. No request comes from it again,
     * and a reply to a call still held for it goes nowhere. Called on the server's threads; the
     * default does nothing.
     */
    default void onConnectionClosed(final String connection, final String reason)
    {
    }
}
