using System.Buffers;
using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>The server's side of the HTTP/1.1 opening handshake on a raw transport (a Kestrel connection, a socket):
/// for a server of your own that accepts connections itself; Kestrel's fast path (<c>UseWebSockets</c>) runs it for
/// you.</summary>
/// <remarks>It reads the request head within a size and time bound, validates it strictly, answers 101 (accepting
/// permessage-deflate when <see cref="WebSocketAcceptOptions.Deflate"/> is set and offered) or the refusal's status.
/// Frames the client sent right behind its request stay in the pipe for the websocket. After a refusal the input is
/// drained briefly so the response is not erased by a reset.</remarks>
public static class WebSocketServerHandshake
{
    /// <summary>What a server accepts when the caller gives no options (never handed out, so never changed).</summary>
    private static readonly WebSocketAcceptOptions DefaultAccept = new();

    /// <summary>Runs the handshake.</summary>
    /// <param name="transport">The connection.</param>
    /// <param name="options">What to accept.</param>
    /// <param name="isPathServed">Whether a request target (path and query) is served; 404 otherwise. Null serves all.</param>
    /// <param name="cancellationToken">Aborts the handshake.</param>
    public static async Task<WebSocketAcceptResult> AcceptAsync(
        IDuplexPipe transport, WebSocketAcceptOptions? options = null, Func<string, bool>? isPathServed = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(transport);
        options ??= DefaultAccept;
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(options.HandshakeTimeout);
        HttpHead? head;
        try
        {
            head = await ReadHeadAsync(transport.Input, options.MaxRequestHeadLength, deadline.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            // Answered as Kestrel answers its request-headers timeout, so a client that is only slow learns why.
            return await RefuseAsync(transport, null, new HandshakeFailure(408, "No complete request head in time."), cancellationToken).ConfigureAwait(false);
        }
        catch (HandshakeRefusedException refused)
        {
            return await RefuseAsync(transport, null, refused.Failure, cancellationToken).ConfigureAwait(false);
        }
        catch (IOException)
        {
            // The transport failed under the read (a peer that reset the connection mid-head): nothing to answer, and
            // nothing for the host to report as unhandled.
            return new WebSocketAcceptResult(null, null, null, new HandshakeFailure(400, "The connection failed before a complete request head."));
        }

        if (head is null)
        {
            return new WebSocketAcceptResult(null, null, null, new HandshakeFailure(400, "The connection closed before a request head."));
        }

        string target = head.Target;
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(
            new WebSocketHandshakeFacts { Method = head.Method, HttpVersion = head.Version, Headers = head, Target = target },
            options, isPathServed is null ? null : (_, path) => isPathServed(path));
        if (!decision.IsAccepted)
        {
            return await RefuseAsync(transport, target, decision.Failure, cancellationToken).ConfigureAwait(false);
        }

        Http1Handshake.WriteResponse(transport.Output, decision);
        await transport.Output.FlushAsync(cancellationToken).ConfigureAwait(false);
        return new WebSocketAcceptResult(decision.Request, target, decision.Subprotocol, default) { Deflate = decision.Deflate };
    }

    private static async Task<HttpHead?> ReadHeadAsync(PipeReader input, int maxHeadLength, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            ReadOnlySequence<byte> buffer = result.Buffer;
            OperationStatus status = ParseHead(buffer, maxHeadLength, out HttpHead? head, out int headLength, out HttpHeadError error);
            if (status == OperationStatus.Done)
            {
                input.AdvanceTo(buffer.GetPosition(headLength));
                return head;
            }

            input.AdvanceTo(buffer.Start, buffer.End);
            if (status == OperationStatus.InvalidData)
            {
                throw new HandshakeRefusedException(HandshakeFailure.From(error));
            }

            if (result.IsCompleted)
            {
                return null;
            }
        }
    }

    /// <summary>Parses a head at the start of a possibly multi-segment buffer.</summary>
    internal static OperationStatus ParseHead(
        in ReadOnlySequence<byte> buffer, int maxHeadLength, out HttpHead? head, out int headLength, out HttpHeadError error) =>
        HttpHeadParser.TryParse(buffer, out head, out headLength, out error, maxHeadLength);

    /// <summary>Refuses a handshake with <paramref name="failure"/>'s status, completes the output, then drains the
    /// input briefly. Nothing may be written to the transport afterwards.</summary>
    public static async Task<WebSocketAcceptResult> RefuseAsync(
        IDuplexPipe transport, string? target, HandshakeFailure failure, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(transport);
        Http1Handshake.WriteRejection(transport.Output, failure);
        await transport.Output.FlushAsync(cancellationToken).ConfigureAwait(false);
        // Half-close (the response says Connection: close), then read until the client's FIN, so unread input
        // never turns our close into a reset that could erase the response.
        await transport.Output.CompleteAsync().ConfigureAwait(false);
        await DrainAsync(transport.Input, TimeSpan.FromSeconds(1), 64 * 1024).ConfigureAwait(false);
        return new WebSocketAcceptResult(null, target, null, failure);
    }

    /// <summary>Discards input until FIN, the time bound or the byte bound.</summary>
    internal static async Task DrainAsync(PipeReader input, TimeSpan timeout, long maxBytes)
    {
        using var deadline = new CancellationTokenSource(timeout);
        long drained = 0;
        try
        {
            while (drained < maxBytes)
            {
                ReadResult result = await input.ReadAsync(deadline.Token).ConfigureAwait(false);
                drained += result.Buffer.Length;
                input.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted || result.IsCanceled)
                {
                    return;
                }
            }
        }
        catch (OperationCanceledException)
        {
            // Bounded: give up and let the caller close.
        }
    }

    private sealed class HandshakeRefusedException(HandshakeFailure failure) : Exception(failure.Message)
    {
        public HandshakeFailure Failure { get; } = failure;
    }
}
