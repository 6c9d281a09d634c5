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
}
