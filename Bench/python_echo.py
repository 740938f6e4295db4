"""Echo servers written the way a Python team would: `websockets`, and `picows` if installed.

Usage: python_echo.py websockets|picows PORT
"""
import asyncio
import sys


async def websockets_echo(port):
    import websockets

    async def echo(ws):
        async for message in ws:
            await ws.send(message)

    async with websockets.serve(echo, "127.0.0.1", port, max_size=None, compression=None,
                                subprotocols=None):
        await asyncio.Future()


async def picows_echo(port):
    import picows

    class Echo(picows.WSListener):
        def on_ws_frame(self, transport, frame):
            if frame.msg_type == picows.WSMsgType.CLOSE:
                transport.send_close(frame.get_close_code(), frame.get_close_message())
                transport.disconnect()
            elif frame.msg_type in (picows.WSMsgType.TEXT, picows.WSMsgType.BINARY):
                transport.send(frame.msg_type, frame.get_payload_as_bytes())

    server = await picows.ws_create_server(lambda _: Echo(), "127.0.0.1", port)
    await server.serve_forever()


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    asyncio.run({"websockets": websockets_echo, "picows": picows_echo}[kind](port))
