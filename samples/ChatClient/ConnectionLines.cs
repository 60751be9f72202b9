using System.Globalization;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.ChatClient;

/// <summary>
/// The lines the client prints about its connection, each starting with <c># </c> (a chat line never does: it starts
/// with a nickname and <c>: </c>, or <c>?: </c>):
/// <c># connected</c>; <c># disconnected 1001 server stopping</c> (the server's Close status and reason) or
/// <c># disconnected 1006 connection lost</c> (no Close came: why it ended); <c># reconnecting in 180 ms (attempt 2:
/// why the last attempt failed)</c>; <c># queued</c> (a line typed while disconnected, sent after reconnecting);
/// <c># not sent: why</c>; and last <c># stopped closed (1000)</c>, <c># stopped not reconnectable: why</c> or
/// <c># stopped gave up: why</c>.
/// </summary>
public static class ConnectionLines
{
    /// <summary>A websocket is open and took the lines queued while disconnected.</summary>
    public const string Connected = "# connected";

    /// <summary>A line typed while disconnected waits for the next websocket.</summary>
    public const string Queued = "# queued";

    /// <summary>An open websocket ended.</summary>
    public static string Disconnected(WebSocketCloseInfo closed) => "# disconnected " + Describe(closed);

    /// <summary>The client waits before its next attempt.</summary>
    public static string Reconnecting(WebSocketReconnectingEventArgs next)
    {
        ArgumentNullException.ThrowIfNull(next);
        string after = next.LastError is { } error ? ": " + Explain(error) : "";
        return string.Create(CultureInfo.InvariantCulture, $"# reconnecting in {next.Delay.TotalMilliseconds:F0} ms (attempt {next.Attempt}{after})");
    }

    /// <summary>A line the client could not take (its queue is full).</summary>
    public static string NotSent(Exception error) => "# not sent: " + Explain(error);

    /// <summary>The client stopped for good: <paramref name="closed"/> is how the last websocket ended (the close
    /// handshake this client began, or the server's close that ended it for good), <paramref name="error"/> why the
    /// last attempt failed.</summary>
    public static string Stopped(WebSocketStopReason reason, WebSocketCloseInfo? closed, Exception? error)
    {
        string why = closed is not null ? Describe(closed) : error is not null ? Explain(error) : "";
        return reason switch
        {
            WebSocketStopReason.Closed => closed is null ? "# stopped closed" : $"# stopped closed ({why})",
            WebSocketStopReason.NotReconnectable => "# stopped not reconnectable: " + why,
            WebSocketStopReason.GaveUp => "# stopped gave up: " + why,
            _ => "# stopped " + reason.ToString().ToLowerInvariant(),
        };
    }

    /// <summary>How a websocket ended: the server's Close status and reason when one came, else 1006 and why.</summary>
    public static string Describe(WebSocketCloseInfo closed)
    {
        ArgumentNullException.ThrowIfNull(closed);
        if (closed.ReceivedStatus is { } status)
        {
            string reason = string.IsNullOrEmpty(closed.ReceivedReason) ? "" : " " + OneLine(closed.ReceivedReason);
            return string.Create(CultureInfo.InvariantCulture, $"{(int)status}{reason}");
        }

        string why = closed.EndReason switch
        {
            WebSocketEndReason.ProtocolViolation => $"protocol violation ({closed.Violation})",
            WebSocketEndReason.KeepAliveTimeout => "keep-alive timeout",
            WebSocketEndReason.IdleTimeout => "idle timeout",
            WebSocketEndReason.CloseTimeout => "close timeout",
            WebSocketEndReason.SlowConsumer => "slow consumer",
            WebSocketEndReason.Aborted => "aborted",
            WebSocketEndReason.Error when closed.Error is { } error => "error: " + Explain(error),
            WebSocketEndReason.Error => "error",
            _ => "connection lost",
        };
        return "1006 " + why;
    }

    /// <summary>An error's message, with its innermost cause's when that says more (HTTP/2's "The SSL connection could
    /// not be established, see inner exception", say).</summary>
    public static string Explain(Exception error)
    {
        ArgumentNullException.ThrowIfNull(error);
        Exception cause = error;
        while (cause.InnerException is { } inner)
        {
            cause = inner;
        }

        return OneLine(error.Message.Contains(cause.Message, StringComparison.Ordinal) ? error.Message : $"{error.Message} ({cause.Message})");
    }

    /// <summary>Line breaks as spaces: every line printed stays one line (and no text can print a line that looks like
    /// a <c># </c> line).</summary>
    public static string OneLine(string text) => text.ReplaceLineEndings(" ");
}
