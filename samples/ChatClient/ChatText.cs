using System.Diagnostics.CodeAnalysis;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace WebSocketCodec.Samples.ChatClient;

/// <summary>A chat text in the chat page's format, <c>{"nick":"ann","text":"hi"}</c>: the server relays every text
/// unchanged and never looks inside, so this is a convention between clients, the page's and this one.</summary>
/// <param name="Nick">Who wrote it.</param>
/// <param name="Text">What they wrote.</param>
public sealed record ChatText(string Nick, string Text)
{
    /// <summary>The text as the page sends it: JSON, UTF-8.</summary>
    public byte[] ToUtf8Json() => JsonSerializer.SerializeToUtf8Bytes(this, ChatTextJson.Default.ChatText);

    /// <summary>Reads what the page would show as a chat line: a JSON object whose <c>nick</c> and <c>text</c> are
    /// strings. False for anything else (a client with a format of its own).</summary>
    public static bool TryParse(ReadOnlySpan<byte> utf8, [NotNullWhen(true)] out ChatText? text)
    {
        try
        {
            text = JsonSerializer.Deserialize(utf8, ChatTextJson.Default.ChatText);
        }
        catch (JsonException)
        {
            text = null;
        }

        if (text is { Nick: not null, Text: not null })
        {
            return true;
        }

        text = null; // a missing or null nick or text
        return false;
    }
}

/// <summary>The JSON of <see cref="ChatText"/>, generated at build time: camelCase names, as the page writes them.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(ChatText))]
internal sealed partial class ChatTextJson : JsonSerializerContext;
