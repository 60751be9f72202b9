using Akka.Actor;
using Akka.Remote.Transport;
using Google.Protobuf;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Akka;

/// <summary>
/// One association: one websocket, one binary message per Akka PDU. <see cref="Write"/> appends the PDU as a frame
/// straight from the <see cref="ByteString"/>'s memory (no copy, no allocation) and leaves the flush to one queued
/// work item, so a burst of writes from Akka's endpoint writer leaves in one flush.
/// </summary>
internal sealed class WebSocketAssociationHandle : AssociationHandle
{
    private readonly WebSocketConnection _websocket;
    private readonly WebSocketTransport _transport;
    private readonly WebSocketFrameSender _sender;
    private readonly long _maximumPayload;
    private int _disassociated;

    public WebSocketAssociationHandle(Address localAddress, Address remoteAddress, WebSocketConnection websocket, WebSocketTransport transport, long maximumPayload)
        : base(localAddress, remoteAddress)
    {
        _websocket = websocket;
        _transport = transport;
        _sender = websocket.Sender;
        _maximumPayload = maximumPayload;
    }

    /// <summary>The websocket this association runs on.</summary>
    public WebSocketConnection WebSocket => _websocket;

    /// <summary>Thread-safe, ordered, never waits. False: the payload was not enqueued (above the high water mark, or
    /// the association is closing); Akka keeps it and retries.</summary>
    public override bool Write(ByteString payload)
    {
        ArgumentNullException.ThrowIfNull(payload);
        if (payload.Length > _maximumPayload)
        {
            // Akka's endpoint writer drops oversized payloads before they get here; one that does is dropped too
            // (false would make Akka retry it forever).
            _transport.LogOversized(this, payload.Length);
            return true;
        }

        if (_sender.TrySendBatched(WebSocketOpcode.Binary, payload.Span))
        {
            return true;
        }

        if (_sender.CanSend)
        {
            AkkaTelemetry.WritesRefused.Add(1);
        }

        return false;
    }

    /// <summary>Sends Close 1000 (once; later calls do nothing). Frames written before it go first. The read listener
    /// gets <see cref="Disassociated"/> when the websocket has ended.</summary>
    [Obsolete("Use the method that states reasons to make sure disassociation reasons are logged.")]
    public override void Disassociate() => Close(CloseStatus.NormalClosure, "disassociated");

    /// <summary>Starts the close handshake with <paramref name="status"/> unless one was started.</summary>
    public void Close(CloseStatus status, string reason)
    {
        if (Interlocked.Exchange(ref _disassociated, 1) == 0)
        {
            _ = CloseQuietlyAsync(status, reason);
        }
    }

    /// <summary>Called by the reader once the websocket has ended.</summary>
    internal void Ended(WebSocketCloseInfo info) => _transport.Ended(this, info);

    private async Task CloseQuietlyAsync(CloseStatus status, string reason)
    {
        try
        {
            await _websocket.CloseAsync(status, reason).ConfigureAwait(false);
        }
        catch (Exception error) when (error is IOException or InvalidOperationException or ObjectDisposedException or OperationCanceledException)
        {
            _websocket.Abort(); // the transport is gone: the read loop ends and reports it
        }
    }
}
