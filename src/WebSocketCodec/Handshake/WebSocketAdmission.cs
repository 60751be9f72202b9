using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>The open-websocket cap (<see cref="WebSocketAcceptOptions.MaxConcurrentWebSockets"/>), written once for
/// every host: use it in a host of your own to apply the cap as the packaged servers do.</summary>
/// <remarks><para>It counts handshakes under way and websockets open; a handshake that would go over the cap is refused
/// (the host answers <see cref="HandshakeFailure.OverCapacity"/>: 503) and not counted. A host counts each handshake in
/// with <see cref="TryEnter"/> and out with <see cref="Leave"/> once its websocket has ended or its refusal was
/// answered (<see cref="LeaveWhenEnded(WebSocketDriver)"/> does the first).</para>
/// <para>Thread-safe. A host whose handlers are made per connection (SpanNetty's) shares one count per options instance
/// through <see cref="For"/>; a host with one place per endpoint (Kestrel's) makes its own.</para></remarks>
public sealed class WebSocketAdmission
{
    private static readonly ConditionalWeakTable<WebSocketAcceptOptions, WebSocketAdmission> Shared = [];
    private int _admitted;

    /// <summary>A count with its own cap.</summary>
    /// <param name="maxOpen">Handshakes under way and websockets open at most.</param>
    public WebSocketAdmission(int maxOpen)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxOpen);
        MaxOpen = maxOpen;
    }

    /// <summary>The count shared by everything made with <paramref name="options"/> (the same instance); null when the
    /// options set no cap.</summary>
    /// <param name="options">The accept options.</param>
    /// <returns>The shared count, or null.</returns>
    public static WebSocketAdmission? For(WebSocketAcceptOptions? options) =>
        options is null || options.MaxConcurrentWebSockets == WebSocketAcceptOptions.Unlimited
            ? null
            : Shared.GetValue(options, static o => new WebSocketAdmission(o.MaxConcurrentWebSockets));

    /// <summary>The cap.</summary>
    public int MaxOpen { get; }

    /// <summary>Handshakes under way and websockets open now.</summary>
    public int Count => Volatile.Read(ref _admitted);

    /// <summary>Counts a handshake in.</summary>
    /// <returns>False when that would put it over the cap: refuse the handshake (it was not counted).</returns>
    public bool TryEnter()
    {
        if (Interlocked.Increment(ref _admitted) <= MaxOpen)
        {
            return true;
        }

        Interlocked.Decrement(ref _admitted);
        return false;
    }

    /// <summary>Counts one admitted handshake out (its websocket ended, or it was refused after all).</summary>
    public void Leave()
    {
        if (Interlocked.Decrement(ref _admitted) < 0)
        {
            Interlocked.Increment(ref _admitted);
            throw new InvalidOperationException("More leaves than admissions.");
        }
    }

    /// <summary>Counts an admitted handshake out when <paramref name="websocket"/> has ended.</summary>
    /// <param name="websocket">The websocket the handshake opened.</param>
    public void LeaveWhenEnded(WebSocketDriver websocket)
    {
        ArgumentNullException.ThrowIfNull(websocket);
        LeaveWhenEnded(websocket.Completion);
    }

    /// <summary>Counts an admitted handshake out when <paramref name="ended"/> completes, however it does (for a
    /// websocket the host runs without a driver of its own, say its channel's or stream's end).</summary>
    /// <param name="ended">Completes when the websocket the handshake opened has ended.</param>
    public void LeaveWhenEnded(Task ended)
    {
        ArgumentNullException.ThrowIfNull(ended);
        _ = ended.ContinueWith(
            static (_, state) => ((WebSocketAdmission)state!).Leave(), this,
            CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>Runs one handshake counted in: <paramref name="handshake"/> is told whether it is over the cap (then it
    /// refuses with <see cref="HandshakeFailure.OverCapacity"/>), and the count is left when it returns. For a host
    /// whose handshake and websocket run in one call (Kestrel's endpoint and connection middleware).</summary>
    /// <param name="admission">The cap, or null when there is none.</param>
    /// <param name="handshake">Given whether the handshake is over the cap, runs it (and its websocket, if accepted).</param>
    /// <returns>Completes when <paramref name="handshake"/> has.</returns>
    public static async Task RunAsync(WebSocketAdmission? admission, Func<bool, Task> handshake)
    {
        ArgumentNullException.ThrowIfNull(handshake);
        bool admitted = admission?.TryEnter() ?? true;
        try
        {
            await handshake(!admitted).ConfigureAwait(false);
        }
        finally
        {
            if (admitted)
            {
                admission?.Leave();
            }
        }
    }
}
