using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>The checks a host's frame sender makes before a send, with the errors it throws: synchronous sends only on
/// the websocket's own loop, and no data frame once the websocket is closing or its transport is gone.</summary>
internal static class SendGuard
{
    /// <summary>Throws when a synchronous send is made off the loop.</summary>
    /// <param name="onLoop">Whether the caller is on the websocket's read loop or event loop.</param>
    /// <param name="advice">What to use from other threads, for the message.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void OnLoop(bool onLoop, string advice)
    {
        if (!onLoop)
        {
            ThrowNotOnLoop(advice);
        }
    }

    /// <summary>Throws when no data frame may be sent.</summary>
    /// <param name="canSend">Whether the websocket can send.</param>
    /// <param name="closing">Whether the websocket is closing or closed (else its transport is gone).</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void CanSend(bool canSend, bool closing)
    {
        if (!canSend)
        {
            ThrowClosed(closing);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowNotOnLoop(string advice) => throw new InvalidOperationException(advice);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowClosed(bool closing) => throw new InvalidOperationException(
        closing ? "The websocket is closing or closed: no more data frames may be sent." : "The transport is closed.");
}
