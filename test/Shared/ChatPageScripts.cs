using System.Text.Json;

namespace WebSocketCodec.Testing;

/// <summary>What the browser tests evaluate in <c>samples/Chat</c>'s page (through <c>HeadlessChromium.WaitForAsync</c>):
/// its state line, typing into its form, and its log.</summary>
public static class ChatPageScripts
{
    /// <summary>The page's state line ("connected to ROOM", "closed (...)", ...).</summary>
    public const string State = "document.getElementById('state').textContent";

    /// <summary>Types <paramref name="text"/> into the page's form and submits it once the page is connected: "sent",
    /// else "not connected".</summary>
    public static string Say(string text) => $$"""
        (() => {
          if (document.getElementById('state').dataset.state !== 'open') return 'not connected';
          document.getElementById('text').value = {{JsonSerializer.Serialize(text)}};
          document.getElementById('say').requestSubmit();
          return 'sent';
        })()
        """;

    /// <summary>The log's lines as JSON once there are at least <paramref name="count"/>, else "waiting".</summary>
    public static string Lines(int count) => $$"""
        (() => {
          const lines = [...document.querySelectorAll('#log li')].map(li => li.textContent);
          return lines.length >= {{count}} ? JSON.stringify(lines) : 'waiting';
        })()
        """;

    /// <summary>The log's lines as JSON once one of them contains <paramref name="text"/>, else "waiting".</summary>
    public static string LinesContaining(string text) => $$"""
        (() => {
          const lines = [...document.querySelectorAll('#log li')].map(li => li.textContent);
          return lines.some(line => line.includes({{JsonSerializer.Serialize(text)}})) ? JSON.stringify(lines) : 'waiting';
        })()
        """;
}
