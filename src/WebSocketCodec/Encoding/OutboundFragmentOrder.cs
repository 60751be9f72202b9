using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>
/// Keeps a sender's outbound fragments in order (RFC 6455 §5.4): a Continuation only inside an unfinished message, a
/// new Text or Binary message only outside one. Control frames may come anywhere. A mutable struct: keep it in a field.
/// </summary>
internal struct OutboundFragmentOrder
{
    private bool _messageOpen;

    /// <summary>Whether a message was started and its final fragment not sent yet.</summary>
    public readonly bool InMessage => _messageOpen;

    /// <summary>Checks the next frame and records it; throws <see cref="InvalidOperationException"/> out of order.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Next(WebSocketOpcode opcode, bool fin)
    {
        if (opcode is WebSocketOpcode.Text or WebSocketOpcode.Binary)
        {
            if (_messageOpen)
            {
                ThrowOrder("A new message cannot start before the previous one's final fragment.");
            }

            _messageOpen = !fin;
        }
        else if (opcode == WebSocketOpcode.Continuation)
        {
            if (!_messageOpen)
            {
                ThrowOrder("A Continuation frame needs an unfinished message.");
            }

            _messageOpen = !fin;
        }
    }

    /// <summary>Refuses a Close from the data-frame sends: a Close goes through the close handshake only.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void CheckDataOpcode(WebSocketOpcode opcode)
    {
        if (opcode == WebSocketOpcode.Close)
        {
            ThrowCloseOpcode();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowOrder(string message) => throw new InvalidOperationException(message);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowCloseOpcode() =>
        throw new ArgumentException("A Close is sent with CloseAsync only: it runs the close handshake.", "opcode");
}
