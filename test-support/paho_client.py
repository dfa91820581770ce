#!/usr/bin/env python3
"""A scripted MQTT 5 client on Eclipse Paho (Debian's python3-paho-mqtt), for the interop tests of the embedded
broker (runtime/mqtt/interop.test.ts). Argument: a JSON document {host, port, steps: [...]}; each step runs in
order on one connection and every broker answer is printed as one JSON line on stdout:

  {"do": "connect", "clientId", "username", "password", "cleanStart": true, "sessionExpiry": 0,
   "will": {"topic", "payload", "qos"}}                       -> {"event": "connack", "rc", "sessionPresent", "topicAliasMaximum"}
  {"do": "subscribe", "filters": [["svc/k/#", 1], ...]}       -> {"event": "suback", "rcs": [...]}
  {"do": "publish", "topic", "payload", "qos", "retain", "responseTopic", "correlation", "alias"}
                                                              -> {"event": "published", "mid"}
  {"do": "wait", "count": n, "timeout": s}                    waits until n messages arrived ({"event": "message", ...} each)
  {"do": "print", "text"}                                     -> {"event": "print", "text"} (a marker)
  {"do": "disconnect"}                                        a clean DISCONNECT
  {"do": "hang"}                                              waits to be killed (a will test)
"""
import json
import sys
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

lock = threading.Lock()
messages = []
connected = threading.Event()
subscribed = threading.Event()
state = {}


def out(doc):
    with lock:
        sys.stdout.write(json.dumps(doc) + "\n")
        sys.stdout.flush()


def rc_value(rc):
    return rc.value if hasattr(rc, "value") else int(rc)


def on_connect(client, userdata, flags, rc, properties=None):
    alias_max = getattr(properties, "TopicAliasMaximum", None) if properties is not None else None
    out({"event": "connack", "rc": rc_value(rc), "sessionPresent": bool(flags.get("session present")), "topicAliasMaximum": alias_max})
    state["rc"] = rc_value(rc)
    connected.set()


def on_subscribe(client, userdata, mid, rcs, properties=None):
    out({"event": "suback", "rcs": [rc_value(r) for r in rcs]})
    subscribed.set()


def on_message(client, userdata, msg):
    p = msg.properties
    corr = getattr(p, "CorrelationData", None) if p is not None else None
    doc = {
        "event": "message",
        "topic": msg.topic,
        "qos": msg.qos,
        "retain": bool(msg.retain),
        "payload": msg.payload.decode("utf-8", "replace"),
        "correlation": corr.decode("utf-8", "replace") if corr is not None else None,
        "contentType": getattr(p, "ContentType", None) if p is not None else None,
        "userProperties": dict(getattr(p, "UserProperty", []) or []) if p is not None else {},
    }
    with lock:
        messages.append(doc)
    out(doc)


def main():
    spec = json.loads(sys.argv[1])
    client = None
    for step in spec["steps"]:
        do = step["do"]
        if do == "connect":
            client = mqtt.Client(client_id=step["clientId"], protocol=mqtt.MQTTv5)
            client.username_pw_set(step.get("username", step["clientId"]), step.get("password"))
            client.on_connect = on_connect
            client.on_subscribe = on_subscribe
            client.on_message = on_message
            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = step.get("sessionExpiry", 0)
            will = step.get("will")
            if will:
                client.will_set(will["topic"], will.get("payload", ""), will.get("qos", 0), False)
            client.connect(spec["host"], spec["port"], keepalive=30, clean_start=step.get("cleanStart", True), properties=props)
            client.loop_start()
            if not connected.wait(30):
                out({"event": "error", "text": "no CONNACK in 30 s"})
                sys.exit(2)
            if state.get("rc", 0) >= 0x80:
                client.loop_stop()
                return
        elif do == "subscribe":
            subscribed.clear()
            client.subscribe([(f, q) for f, q in step["filters"]])
            if not subscribed.wait(30):
                out({"event": "error", "text": "no SUBACK in 30 s"})
                sys.exit(2)
        elif do == "publish":
            props = Properties(PacketTypes.PUBLISH)
            if "responseTopic" in step:
                props.ResponseTopic = step["responseTopic"]
            if "correlation" in step:
                props.CorrelationData = step["correlation"].encode("utf-8")
            if "alias" in step:
                props.TopicAlias = step["alias"]
            info = client.publish(step.get("topic", ""), step.get("payload", ""), step.get("qos", 0), step.get("retain", False), props)
            info.wait_for_publish(30)
            out({"event": "published", "mid": info.mid})
        elif do == "wait":
            deadline = time.time() + step.get("timeout", 30)
            while time.time() < deadline:
                with lock:
                    if len(messages) >= step["count"]:
                        break
                time.sleep(0.02)
        elif do == "print":
            out({"event": "print", "text": step["text"]})
        elif do == "disconnect":
            client.disconnect()
            time.sleep(0.2)
            client.loop_stop()
        elif do == "hang":
            while True:
                time.sleep(1)
    if client is not None:
        client.loop_stop()


if __name__ == "__main__":
    main()
