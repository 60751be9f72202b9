using System.Globalization;
using System.Text;

namespace WebSocketCodec.Bench;

/// <summary>
/// Deterministic JSON text of an exact length, as chat, telemetry and API traffic looks: an array of event records
/// whose keys repeat and whose values vary (ids, users, events, timestamps, prices), padded with trailing whitespace
/// (which JSON allows) to the length asked. The same <c>seed</c> gives the same text; different seeds give records
/// with different values, so messages compressed with context takeover are alike without being copies.
/// (Shared by the BenchmarkDotNet project and the perf tool, so both measure the same messages.)
/// </summary>
internal static class JsonPayload
{
    private static readonly string[] Users = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];
    private static readonly string[] Events = ["click", "view", "purchase", "login", "logout", "scroll", "search", "share"];
    private static readonly string[] Pages = ["/home", "/cart", "/product/42", "/search?q=socks", "/account", "/checkout"];

    /// <summary>UTF-8 (ASCII) JSON of exactly <paramref name="length"/> bytes (at least 2).</summary>
    public static byte[] Create(int length, int seed = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(length, 2);
        uint state = (uint)seed * 2654435761u + 12345u;
        var text = new StringBuilder("[");
        for (int i = 0; ; i++)
        {
            string record = Record(ref state, i, length);
            int needed = (i == 0 ? 0 : 1) + record.Length + 1; // comma, record, closing bracket
            if (text.Length + needed > length)
            {
                break;
            }

            text.Append(i == 0 ? "" : ",").Append(record);
        }

        text.Append(']');
        text.Append(' ', length - text.Length);
        return Encoding.ASCII.GetBytes(text.ToString());
    }

    private static string Record(ref uint state, int index, int length)
    {
        uint id = Next(ref state) % 100_000;
        string user = Users[Next(ref state) % Users.Length];
        string action = Events[Next(ref state) % Events.Length];
        long ts = 1_700_000_000_000L + (Next(ref state) % 86_400_000);
        if (length < 100)
        {
            return string.Create(CultureInfo.InvariantCulture, $"{{\"id\":{id},\"user\":\"{user}\",\"event\":\"{action}\"}}");
        }

        string page = Pages[Next(ref state) % Pages.Length];
        double price = (Next(ref state) % 100_000) / 100.0;
        bool ok = (Next(ref state) & 1) == 0;
        return string.Create(CultureInfo.InvariantCulture,
            $"{{\"id\":{id},\"seq\":{index},\"user\":\"{user}\",\"event\":\"{action}\",\"page\":\"{page}\",\"ts\":{ts},\"price\":{price:F2},\"ok\":{(ok ? "true" : "false")}}}");
    }

    private static uint Next(ref uint state)
    {
        state = (state * 1_664_525u) + 1_013_904_223u;
        return state >> 8;
    }
}
