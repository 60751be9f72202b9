using System.Runtime.CompilerServices;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The websockets open under one <see cref="WebSocketAcceptOptions"/> instance, for its
/// <see cref="WebSocketAcceptOptions.MaxConcurrentWebSockets"/>: SpanNetty's upgrade handlers are made per connection,
/// so the handlers made with the same options instance (the application's channel initializer passes one) share one
/// count. A handshake beyond the cap gets 503 and is not upgraded.
/// </summary>
internal sealed class OpenWebSockets
{
    private static readonly ConditionalWeakTable<WebSocketAcceptOptions, OpenWebSockets> Counts = [];
    private readonly int _max;
    private int _admitted; // handshakes under way and websockets open

    private OpenWebSockets(int max) => _max = max;

    /// <summary>The count shared by everything made with <paramref name="options"/>; null when it sets no cap.</summary>
    public static OpenWebSockets? For(WebSocketAcceptOptions? options) =>
        options is null || options.MaxConcurrentWebSockets == WebSocketAcceptOptions.Unlimited
            ? null
            : Counts.GetValue(options, static o => new OpenWebSockets(o.MaxConcurrentWebSockets));

    /// <summary>Handshakes under way and websockets open.</summary>
    public int Count => Volatile.Read(ref _admitted);

    /// <summary>Counts a handshake in: false when that puts it over the cap (it was not counted then).</summary>
    public bool TryEnter()
    {
        if (Interlocked.Increment(ref _admitted) <= _max)
        {
            return true;
        }

        Leave();
        return false;
    }

    /// <summary>Counts a websocket out once it has ended (or its handshake was refused after <see cref="TryEnter"/>).</summary>
    public void Leave() => Interlocked.Decrement(ref _admitted);

    /// <summary>Counts <paramref name="websocket"/> out when it ends.</summary>
    public void LeaveWhenEnded(WebSocketChannelHandler websocket) => _ = websocket.Completion.ContinueWith(
        static (_, state) => ((OpenWebSockets)state!).Leave(), this,
        CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
}
