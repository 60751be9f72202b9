using DotNetty.Codecs.Http2;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>The connection's part of the HTTP/2 websocket server, last in its pipeline: it widens the connection's
/// receive window to the sum of the streams' (so a stalled websocket holds only its own window), and knows the
/// connection's websockets, to close them with 1001 when the server shuts down.</summary>
internal sealed class Http2WebSocketConnection(int connectionWindow) : ChannelHandlerAdapter
{
    private readonly HashSet<WebSocketChannelHandler> _websockets = [];
    private IChannelHandlerContext? _context;
    private bool _windowSent;
    private bool _goingAway;

    public static Http2WebSocketConnection? Of(IChannel? connection) => connection?.Pipeline.Get<Http2WebSocketConnection>();

    public override void HandlerAdded(IChannelHandlerContext context)
    {
        _context = context;
        if (context.Channel.IsActive)
        {
            SendWindow(context);
        }
    }

    public override void ChannelActive(IChannelHandlerContext context)
    {
        context.FireChannelActive(); // the codec sent its preface and SETTINGS on the way
        SendWindow(context);
    }

    /// <summary>Adds a websocket of this connection (on the event loop); after a shutdown began, it is closed with 1001
    /// at once.</summary>
    public void Add(WebSocketChannelHandler websocket)
    {
        _websockets.Add(websocket);
        _ = websocket.Completion.ContinueWith(
            static (_, state) =>
            {
                var (self, ws) = ((Http2WebSocketConnection, WebSocketChannelHandler))state!;
                if (self._context is { } ctx)
                {
                    ctx.Executor.Execute(static (s, w) => ((Http2WebSocketConnection)s)._websockets.Remove((WebSocketChannelHandler)w), self, ws);
                }
            },
            (this, websocket), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        if (_goingAway)
        {
            _ = websocket.CloseAsync(CloseStatus.GoingAway, "server shutting down");
        }
    }

    /// <summary>GOAWAY (no new streams), Close 1001 on every websocket, then the connection closes once they ended or
    /// the timeout passed. On the event loop; completes when the connection is closed.</summary>
    public Task ShutdownAsync(TimeSpan timeout)
    {
        IChannelHandlerContext context = _context ?? throw new InvalidOperationException("The handler is not in a pipeline.");
        if (!_goingAway)
        {
            _goingAway = true;
            if (context.Channel.IsActive)
            {
                _ = context.WriteAndFlushAsync(new DefaultHttp2GoAwayFrame(Http2Error.NoError));
            }

            var ended = new List<Task>(_websockets.Count);
            foreach (WebSocketChannelHandler websocket in _websockets.ToArray())
            {
                ended.Add(websocket.CloseAsync(CloseStatus.GoingAway, "server shutting down"));
            }

            _ = Task.WhenAll(ended).WaitAsync(timeout).ContinueWith(
                static (_, state) => ((IChannelHandlerContext)state!).Channel.CloseAsync(), context,
                CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        return context.Channel.CloseCompletion;
    }

    private void SendWindow(IChannelHandlerContext context)
    {
        if (_windowSent)
        {
            return;
        }

        _windowSent = true;
        Http2ConnectionWindow.Open(context, connectionWindow);
    }
}
