package org.lightwire.romiop.engine;

/**
 * The application's side of state transfer, modelled on FT-CORBA's {@code Checkpointable}
 * ({@code get_state}, {@code set_state}): a member that joins a group past orders it did not
 * execute (a new or restarted replica, or one that rejoins after it was cut off) takes another
 * member's state at a cut of the total order and delivers from the order after the cut, so it
 * serves what the others serve.
 *
 * <p>Every call comes on the engine's thread, in the delivery stream: {@link #captureState} right
 * after the delivery of order {@code cut} and before that of {@code cut + 1}; {@link #installState}
 * before the delivery of {@code cut + 1}. An application that executes deliveries later (queued,
 * as the JacORB plug-in does) takes and installs the state at the same place in its queue.
 */
public interface StateHandler
{
    /**
     * Takes the application's state as it is after order {@code cut}. Answer, now or later, on the
     * engine's thread, with {@link MemberEngine#stateCaptured} or {@link MemberEngine#stateUnavailable}.
     */
    void captureState(long cut);

    /** Replaces the application's state by {@code state}, taken after order {@code cut} at another member. */
    void installState(long cut, byte[] state);

    /**
     * The group could not give this member a state ({@code reason} says why, in the last donor's
     * words; every other member of its view refused too, or the state was too large or malformed):
     * the member has stopped ({@link MemberEngine.State#LEFT}) and serves nothing. It stays in the
     * group's configuration, which counts it as failed until it is restarted.
     */
    void stateRefused(String reason);
}
