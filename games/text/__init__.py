"""The words of the game, shared by every channel: the command parser
(``protocol``), the renderer of the service layer's views (``render``), SMS
text (``sms``) and the links players are sent (``links``).

It sits below the services that use it and above the engine: nothing here
touches the database or a channel's transport.
"""
