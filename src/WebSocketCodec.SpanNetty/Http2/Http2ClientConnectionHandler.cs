using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>The connection's part of the HTTP/2 websocket client, last in its pipeline: it widens the connection's
/// receive window, reads the server's first SETTINGS (does it allow the extended CONNECT of RFC 8441?), and remembers a
/// GOAWAY, after which no stream is opened. What reaches it and is not its own is released.</summary>
internal sealed class Http2ClientConnectionHandler(int connectionWindow) : ChannelHandlerAdapter
{
    /// <summary>SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441 §3): SpanNetty has no name for it.</summary>
    internal const char EnableConnectProtocol = (char)0x8;

    private readonly TaskCompletionSource<bool> _settings = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private bool _windowSent;

    /// <summary>Completes with whether the server's first SETTINGS had SETTINGS_ENABLE_CONNECT_PROTOCOL = 1; faults
    /// when the connection ends (or fails) before them.</summary>
    public Task<bool> Settings => _settings.Task;

    private volatile string? _goAway;

    /// <summary>Why no new stream may be opened (the server's GOAWAY, or the connection's end), or null.</summary>
    public string? GoAway
    {
        get => _goAway;
        private set => _goAway = value;
    }

    public override void HandlerAdded(IChannelHandlerContext context)
    {
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

    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        switch (message)
        {
            case IHttp2SettingsFrame settings:
                _settings.TrySetResult(settings.Settings.TryGetValue(EnableConnectProtocol, out long enabled) && enabled == 1);
                break;
            case IHttp2GoAwayFrame goAway:
                GoAway = $"the server sent GOAWAY ({goAway.ErrorCode}, last stream {goAway.LastStreamId})";
                _settings.TrySetException(new WebSocketHandshakeException($"The connection ended before the server's SETTINGS: {GoAway}."));
                break;
        }

        ReferenceCountUtil.Release(message);
    }

    public override void ExceptionCaught(IChannelHandlerContext context, Exception exception) =>
        _settings.TrySetException(new WebSocketHandshakeException("The HTTP/2 connection failed before the server's SETTINGS.", exception));

    public override void ChannelInactive(IChannelHandlerContext context)
    {
        GoAway ??= "the connection closed";
        _settings.TrySetException(new WebSocketHandshakeException("The connection closed before the server's SETTINGS arrived."));
        context.FireChannelInactive();
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
