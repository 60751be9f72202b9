using System.Globalization;
using System.Net.WebSockets;

namespace WebSocketCodec.Samples.ChatClient;

/// <summary>How a message from the room is printed, as the chat page shows it: a chat text as <c>nick: text</c>,
/// anything else as <c>?: </c> and the message (a text as it is, a binary message by its size). Line breaks inside a
/// message are printed as spaces, so each message is one line.</summary>
public static class ChatLines
{
    /// <summary>The line for <paramref name="message"/>.</summary>
    public static string For(WebSocketMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (message.Type != WebSocketMessageType.Text)
        {
            return string.Create(CultureInfo.InvariantCulture, $"?: (binary message, {message.Length} bytes)");
        }

        return ChatText.TryParse(message.Payload.Span, out ChatText? text)
            ? ConnectionLines.OneLine(text.Nick) + ": " + ConnectionLines.OneLine(text.Text)
            : "?: " + ConnectionLines.OneLine(message.GetText());
    }
}
